/**
 * Retention beside an open read, before and after its lock waits were bounded, in one run on
 * PostgreSQL:
 *
 *   npx tsx bench/retention-locks.ts [--before DIR] [--hold 30] [--connections 8] [--kept 300000]
 *
 * Each side (this checkout, `after`; optionally another checkout, `before`) gets a database of its
 * own, migrated and filled by that checkout's own bench setup, and its own service (`serve --role
 * api`). The database holds `--kept` live events of the fixture's channel (one year's retention)
 * over the last 150 days, and a second channel keeping 30 days with 2,000 events 200 days back, in a
 * month of their own (retention drops it: a DETACH), and 2,000 events 35 to 60 days back, in months
 * the first channel keeps (retention purges them row by row).
 *
 * 1. Two runs of the side's retention job (`purgeExpiredEvidence`, its own code): the first drops the
 *    month and purges the rows, the second has nothing to do. Each one's time and the rows it read
 *    from evidence_events (PostgreSQL's statistics). Then the month is made again, for step 3.
 * 2. Baseline: consent decisions of the fixture's site (each a new subject) from `--connections`
 *    loops for 5 s, every request's latency kept (no client timeout: a stalled write is counted for
 *    as long as it stalls).
 * 3. Under an open read: a session begins a REPEATABLE READ transaction and reads the live evidence
 *    (as a long export or pg_dump does), the retention job starts, and the same decisions run for
 *    `--hold` seconds; then the read ends, and the writes in flight and the job are waited for.
 *
 * Prints per side: the idle run, p50 / p99 / max of the decisions in steps 2 and 3, and the job's
 * time and outcome under the read; and the p99 ratios (under the read / baseline, after / before).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startServiceAt } from './lib/service-at.ts';
import { DEFAULT_DATABASE_URL, SITE_ORIGIN } from './lib/setup.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    hold: { type: 'string', default: '30' },
    connections: { type: 'string', default: '8' },
    kept: { type: 'string', default: '300000' },
  },
});
const HOLD_S = Number(flags.hold);
const CONNECTIONS = Number(flags.connections);
const KEPT = Number(flags.kept);
const EXPIRED = 2000;
const say = (line: string) => process.stderr.write(`retention-locks: ${line}\n`);
const base = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;

interface Prepared {
  env: Record<string, string>;
  fixture: {
    organizationId: string;
    liveKey: string;
    siteKey: string;
    channelId: string;
    configVersion: number;
  };
}

/** Migrates and fills the side's database with its own bench setup (in a child, like bench/writepath.ts). */
function prepareSide(root: string, databaseUrl: string, label: string): Prepared {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-locks-')), 'prepare.mts');
  fs.writeFileSync(
    script,
    `const { freshPostgres, prepare } = await import(${JSON.stringify(path.join(root, 'bench/lib/setup.ts'))});
const bench = await freshPostgres(${JSON.stringify(databaseUrl)});
const fixture = await prepare(bench, ${JSON.stringify(`/tmp/consent-retention-locks-${label}`)});
process.stdout.write(JSON.stringify({ env: bench.env, fixture }));
`,
  );
  const output = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as Prepared;
}

/** `count` live events of `channelId` by SQL, `at` an expression of g (ledger-queued like real ones). */
const eventsSql = (org: string, channelId: string, prefix: string, count: number, at: string) => `
  insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
    config_version, policy_version, source, gpc, recorded_at, receipt_hash)
  select '${org}', '${prefix}' || g, 'live', '${channelId}', 'psn_' || md5('${prefix}' || g),
    '{"analytics":"granted"}'::jsonb, 1, '2024-05', 'banner', false, ${at}, encode(sha256(('${prefix}' || g)::bytea), 'hex')
  from generate_series(1, ${count}) g`;

/** The expired month: its partition and the short channel's events in it. */
async function makeExpiredMonth(client: pg.Client, org: string, channelId: string) {
  await client.query(`select evidence_partition_create('live', now() - interval '200 days')`);
  await client.query(
    eventsSql(
      org,
      channelId,
      `ev_expired_${Date.now()}_`,
      EXPIRED,
      `now() - interval '200 days' + (g % 3600) * interval '1 second'`,
    ),
  );
}

async function rowsRead(client: pg.Client): Promise<number> {
  await client.query('select pg_stat_clear_snapshot()');
  const { rows } = await client.query(`select
    (select coalesce(sum(seq_tup_read), 0) from pg_stat_user_tables where relname like 'evidence_events%')
    + (select coalesce(sum(idx_tup_read), 0) from pg_stat_user_indexes where relname like 'evidence_events%') as n`);
  return Number(rows[0].n);
}

/** Decisions from `connections` loops until `stop()` resolves; every request's latency (ms). */
async function decisions(url: string, configVersion: number, stop: Promise<void>) {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const latencies: number[] = [];
  let failures = 0;
  const loop = async () => {
    while (!stopped) {
      const started = performance.now();
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: SITE_ORIGIN,
          'idempotency-key': crypto.randomUUID(),
        },
        body: JSON.stringify({
          subjectId: `sub-${crypto.randomUUID()}`,
          decisions: { analytics: 'granted', marketing: 'denied' },
          configVersion,
          source: 'banner',
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 201) failures++;
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const ms = (v: number) => Math.round(v * 10) / 10;
  return { requests: latencies.length, failures, p50Ms: ms(at(0.5)), p99Ms: ms(at(0.99)), maxMs: ms(at(1)) };
}

const seconds = (s: number) => new Promise<void>((resolve) => setTimeout(resolve, s * 1000));

async function side(label: string, root: string) {
  const url = new URL(base);
  url.pathname = `${url.pathname}_retention_locks_${label}`;
  const prepared = prepareSide(root, url.toString(), label);
  const { fixture } = prepared;
  const { createPostgresStore } = await import(`${root}/src/platform/db/store.ts`);
  const { purgeExpiredEvidence } = await import(`${root}/src/modules/evidence/retention.ts`);
  const service = await startServiceAt(root, prepared.env);
  const store = createPostgresStore(url.toString(), { max: 1 });
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const reader = new pg.Client({ connectionString: url.toString() });
  await reader.connect();
  const clock = { now: () => new Date() };
  try {
    const channel = await fetch(`${service.baseUrl}/v1/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Keeps 30 days',
        privacyPolicy: { url: 'https://shop.example.com/privacy', version: '2024-05', retentionDays: 30 },
      }),
    }).then((res) => res.json() as Promise<{ data: { id: string } }>);
    const shortId = channel.data.id;
    await client.query(`select evidence_partitions_ensure('live', now() - interval '150 days', now())`);
    await client.query(
      eventsSql(
        fixture.organizationId,
        fixture.channelId,
        'ev_kept_',
        KEPT,
        `now() - (g::bigint * 12960000 / ${KEPT}) * interval '1 second'`,
      ),
    );
    await makeExpiredMonth(client, fixture.organizationId, shortId);
    // The short channel's events in the months the long one keeps: purged row by row.
    await client.query(
      eventsSql(
        fixture.organizationId,
        shortId,
        'ev_short_',
        EXPIRED,
        `now() - interval '35 days' - (g % 2160000) * interval '1 second'`,
      ),
    );
    await client.query('vacuum analyze');

    // 1. The first run drops the month and purges the short channel's events in the kept months;
    // the second has nothing to do.
    const measured = async () => {
      const readBefore = await rowsRead(client);
      const started = performance.now();
      const run = await purgeExpiredEvidence({ store, clock });
      const ms = Math.round(performance.now() - started);
      await store.pool.query('select pg_stat_force_next_flush()');
      const rows = (await rowsRead(client)) - readBefore;
      return { ms, rowsRead: rows, dropped: run.droppedPartitions.length, purgedRows: run.test + run.live };
    };
    const firstRun = await measured();
    const idleRun = await measured();
    say(`${label}: first run ${JSON.stringify(firstRun)}, idle run ${JSON.stringify(idleRun)}`);
    await makeExpiredMonth(client, fixture.organizationId, shortId);

    // 2. Baseline.
    const decisionsUrl = `${service.baseUrl}/v1/public/sites/${fixture.siteKey}/preferences`;
    const baseline = await decisions(decisionsUrl, fixture.configVersion, seconds(5));
    say(`${label}: baseline ${JSON.stringify(baseline)}`);

    // 3. Under an open read.
    await reader.query('begin isolation level repeatable read');
    await reader.query(`select count(*) from evidence_events where environment = 'live'`);
    const started = performance.now();
    const job = purgeExpiredEvidence({ store, clock }).then((run: any) => ({
      ms: Math.round(performance.now() - started),
      dropped: run.droppedPartitions.length,
      deferred: run.deferred?.map((d: any) => `${d.step}:${d.reason}`) ?? null,
    }));
    const held = seconds(HOLD_S)
      .then(() => reader.query('commit'))
      .then(() => undefined);
    const underRead = await decisions(decisionsUrl, fixture.configVersion, held);
    const jobRun = await job;
    say(`${label}: under a ${HOLD_S} s read ${JSON.stringify(underRead)}; job ${JSON.stringify(jobRun)}`);
    return { firstRun, idleRun, baseline, underRead, job: jobRun };
  } finally {
    await reader.end().catch(() => {});
    await client.end();
    await store.close();
    await service.stop();
  }
}

const report: Record<string, any> = {};
report.after = await side('after', process.cwd());
if (flags.before) report.before = await side('before', path.resolve(flags.before));
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
for (const name of Object.keys(report)) {
  report[name].p99UnderReadOverBaseline = ratio(report[name].underRead.p99Ms, report[name].baseline.p99Ms);
}
if (report.before)
  report.p99UnderReadAfterOverBefore = ratio(report.after.underRead.p99Ms, report.before.underRead.p99Ms);
console.log(
  JSON.stringify(
    { holdSeconds: HOLD_S, connections: CONNECTIONS, kept: KEPT, expired: EXPIRED, ...report },
    null,
    2,
  ),
);
