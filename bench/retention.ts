/**
 * The measurement: retention on a filled evidence table, before and after
 * partitioning, in one run on PostgreSQL:
 *
 *   npx tsx bench/retention.ts [--before DIR] [--events 5000000] [--expired-test 500000]
 *
 * Each side (this checkout, `after`; optionally another checkout, `before`) gets a database of its
 * own, migrated by that checkout's own code, and the same events made by SQL: `--events` in all,
 * of which `--expired-test` are test events older than a day (what the hourly job must remove),
 * a few thousand test events of the last hour, and the rest live events spread over the last 90
 * days of one channel that keeps a year. Then the side's own retention job
 * (`purgeExpiredEvidence`) runs until it has nothing left, while a writer inserts one live event
 * at a time into evidence_events (as the consent write does, one statement each); it reports
 * the purge's time, the writer's p50/p99, and the table's size (heap, indexes) before and after.
 *
 * On the partitioned side the past hours and months the events fall in are made first, as the
 * job would have made them ahead while they were written.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    events: { type: 'string', default: '5000000' },
    'expired-test': { type: 'string', default: '500000' },
  },
});
const EVENTS = Number(flags.events);
const EXPIRED_TEST = Number(flags['expired-test']);
const RECENT_TEST = 5000;
const LIVE = EVENTS - EXPIRED_TEST - RECENT_TEST;
const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const say = (line: string) => process.stderr.write(`retention: ${line}\n`);
const ORG = 'org_benchretention';
const CHANNEL = 'ch_benchretention';

function databaseUrl(name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  return databaseUrl(name);
}

/** An INSERT … SELECT of `count` events from generate_series, `at` an SQL expression of `i`. */
function eventsSql(count: number, offset: number, environment: string, at: string): string {
  return `insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym,
      decisions, config_version, policy_version, source, language, gpc, origin, recorded_at, receipt_hash)
    select '${ORG}', 'ev_' || (i + ${offset}), '${environment}', '${CHANNEL}', md5(i::text || '${environment}'),
      '{"analytics":"granted","marketing":"denied"}'::jsonb, 1, '2024-05', 'banner', 'en', false,
      'https://shop.example.com', ${at}, md5((i + ${offset})::text)
    from generate_series(1, ${count}) as i`;
}

async function sizes(client: pg.Client) {
  const { rows } = await client.query(`
    select coalesce(sum(pg_table_size(c.oid)), 0)::bigint as heap, coalesce(sum(pg_indexes_size(c.oid)), 0)::bigint as indexes
    from pg_class c where c.relkind = 'r' and c.relname like 'evidence_events%'`);
  return {
    heapMb: Math.round(Number(rows[0].heap) / 1048576),
    indexMb: Math.round(Number(rows[0].indexes) / 1048576),
  };
}

async function side(label: string, root: string) {
  const url = await freshDatabase(`bench_retention_${label}`);
  const { createPostgresStore } = await import(`${root}/src/platform/db/store.ts`);
  const { runMigrations } = await import(`${root}/src/platform/db/migrate.ts`);
  const { purgeExpiredEvidence } = await import(`${root}/src/modules/evidence/retention.ts`);
  const store = createPostgresStore(url, { max: 4 });
  await runMigrations(store);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Only the channel's retention is read by the purge; the other columns are what a row needs.
  await client.query(`insert into channels (organization_id, id, environment, name, status, site_key,
      privacy_policy_version, retention_days, config_version, default_language, created_at, updated_at)
    values ('${ORG}', '${CHANNEL}', 'live', 'Bench', 'active', 'site_live_benchretention', '2024-05', 365, 1,
      'en', now(), now())`);
  const partitioned = (await client.query(`select to_regproc('evidence_partitions_ensure') is not null as p`))
    .rows[0].p as boolean;
  const now = Date.now();
  if (partitioned) {
    // What the job would have made ahead while these events were written.
    await client.query(`select evidence_partitions_ensure('test', $1::timestamptz, $2::timestamptz)`, [
      new Date(now - 4 * 86400_000).toISOString(),
      new Date(now + 2 * 3600_000).toISOString(),
    ]);
    await client.query(`select evidence_partitions_ensure('live', $1::timestamptz, $2::timestamptz)`, [
      new Date(now - 92 * 86400_000).toISOString(),
      new Date(now + 92 * 86400_000).toISOString(),
    ]);
  }
  const filling = Date.now();
  // Expired test events over the 3 days before the last 25 hours; recent ones in the last hour.
  await client.query(
    eventsSql(EXPIRED_TEST, 0, 'test', `now() - interval '26 hours' - (i % 172800) * interval '1 second'`),
  );
  await client.query(
    eventsSql(RECENT_TEST, EXPIRED_TEST, 'test', `now() - (i % 3000) * interval '1 second'`),
  );
  for (let done = 0; done < LIVE; done += 1_000_000) {
    const count = Math.min(1_000_000, LIVE - done);
    await client.query(
      eventsSql(
        count,
        EXPIRED_TEST + RECENT_TEST + done,
        'live',
        `now() - (i % 7776000) * interval '1 second'`,
      ),
    );
  }
  await client.query('vacuum analyze');
  say(`${label}: ${EVENTS} events made in ${((Date.now() - filling) / 1000).toFixed(0)} s`);
  const before = await sizes(client);

  // A writer beside the purge: one live event per statement, as a consent write inserts.
  let stop = false;
  const latencies: number[] = [];
  const writer = (async () => {
    let n = 0;
    while (!stop) {
      const started = performance.now();
      await client.query(eventsSql(1, 100_000_000 + n++, 'live', 'now()'));
      latencies.push(performance.now() - started);
    }
  })();
  const started = Date.now();
  let runs = 0;
  let purged = 0;
  for (;;) {
    runs++;
    const result = await purgeExpiredEvidence({ store, clock: { now: () => new Date() } });
    const n = result.test + result.live + (result.droppedPartitions?.length ?? 0);
    purged += result.test + result.live;
    if (n === 0) break;
  }
  const purgeSeconds = (Date.now() - started) / 1000;
  stop = true;
  await writer;
  const { rows } = await client.query(
    `select count(*)::int as left from evidence_events where environment = 'test' and recorded_at < now() - interval '25 hours' and purged_at is null`,
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  await client.query('vacuum analyze');
  const after = await sizes(client);
  await client.end();
  await store.close();
  return {
    partitioned,
    purgeSeconds: Math.round(purgeSeconds * 10) / 10,
    jobRuns: runs,
    rowsPurged: purged,
    expiredTestLeft: rows[0].left,
    writesDuringPurge: latencies.length,
    writeP50Ms: Math.round(at(0.5) * 100) / 100,
    writeP99Ms: Math.round(at(0.99) * 100) / 100,
    sizeBefore: before,
    sizeAfter: after,
  };
}

const result: Record<string, unknown> = {};
if (flags.before) result.before = await side('before', flags.before);
result.after = await side('after', process.cwd());
console.log(JSON.stringify({ events: EVENTS, expiredTest: EXPIRED_TEST, ...result }, null, 2));
