import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredEvidence } from '../../src/modules/evidence/retention.ts';
import { createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * What one retention run reads: it must follow what it deletes, not what the channels that keep
 * longer keep. Counted by PostgreSQL's own statistics (index entries and heap rows read from
 * evidence_events' partitions), which count whatever plan the run used. The events are in this
 * file's own database (or embedded store), months back, and the run is at the real present.
 */
const DAY = 24 * 3600_000;
/** Events of the channel that keeps ten years: what the run must not walk. */
const KEPT = 20_000;
/** Expired events of the channel that keeps 30 days, in the same months: what the run purges. */
const EXPIRED = 60;

let t: TestApp;
let tenant: Tenant;
let long: ReadySite;
let short: ReadySite;
/** The store the run uses: one session, so its statistics can be flushed before they are read. */
let runStore: Store;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  long = await createReadySite(t, tenant.liveKey, { retentionDays: 3650 });
  short = await createReadySite(t, tenant.liveKey, { retentionDays: 30 });
  const now = t.clock.now().getTime();
  await rawSql(t.store).execute(sql`select evidence_partitions_ensure('live',
    ${new Date(now - 150 * DAY).toISOString()}::timestamptz, ${new Date(now).toISOString()}::timestamptz)`);
  // Straight into the table (the HTTP path would take minutes here); well-formed receipt hashes,
  // since the ledger's insert trigger queues every event for sealing.
  const insert = (channelId: string, prefix: string, count: number, firstDaysAgo: number, spanDays: number) =>
    rawSql(t.store).execute(sql`
      insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
        config_version, policy_version, source, gpc, recorded_at, receipt_hash)
      select ${tenant.organizationId}, ${prefix} || g, 'live', ${channelId}, 'psn_' || md5(${prefix} || g),
        '{}'::jsonb, 1, '1', 'banner', false,
        ${new Date(now).toISOString()}::timestamptz - make_interval(days => ${firstDaysAgo} + g % ${spanDays}, secs => g % 3600),
        encode(sha256((${prefix} || g)::bytea), 'hex')
      from generate_series(1, ${count}) g`);
  // Half in the months the short channel's retention ends in, half in the last days.
  await insert(long.channelId, 'evt_kept', KEPT / 2, 40, 100);
  await insert(long.channelId, 'evt_recent', KEPT / 2, 0, 3);
  await insert(short.channelId, 'evt_expired', EXPIRED, 35, 5);
  await rawSql(t.store).execute(sql`analyze evidence_events`);
  runStore = process.env.DATABASE_URL ? createPostgresStore(process.env.DATABASE_URL, { max: 1 }) : t.store;
}, 120_000);
afterAll(async () => {
  if (runStore && runStore !== t.store) await runStore.close();
  await t?.close();
});

/** Index entries and heap rows read so far from evidence_events' partitions, as PostgreSQL counts them. */
async function rowsRead(): Promise<number> {
  // The run's session flushes what it counted; a new snapshot of the counters is then read.
  await rawSql(runStore).execute(sql`select pg_stat_force_next_flush()`);
  await rawSql(runStore).execute(sql`select pg_stat_clear_snapshot()`);
  const result = await rawSql(runStore).execute(sql`
    select (select coalesce(sum(seq_tup_read), 0) from pg_stat_user_tables where relname like 'evidence_events%')
      + (select coalesce(sum(idx_tup_read), 0) from pg_stat_user_indexes where relname like 'evidence_events%') as n`);
  return Number((result as unknown as { rows: Array<{ n: number }> }).rows[0].n);
}

describe('evidence.retention: what a run reads', () => {
  it('purges one channel’s expired events without walking the events another channel keeps', async () => {
    const before = await rowsRead();
    const run = await purgeExpiredEvidence({ store: runStore, clock: t.clock });
    const read = (await rowsRead()) - before;

    expect(run.live).toBe(EXPIRED);
    // Before the purge found a channel's events through its own index, this run read every live
    // event older than the shortest retention (all KEPT of them) to purge EXPIRED.
    expect(read, `rows read to purge ${EXPIRED} of ${KEPT + EXPIRED}`).toBeLessThan(KEPT / 10);
    const left = await rawSql(t.store).execute(sql`select count(*)::int as n from evidence_events
      where channel_id = ${short.channelId} and purged_at is null`);
    expect((left as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(0);

    // Nothing left to purge: the next run reads next to nothing.
    const idle = await rowsRead();
    const again = await purgeExpiredEvidence({ store: runStore, clock: t.clock });
    expect(again.live).toBe(0);
    expect((await rowsRead()) - idle).toBeLessThan(KEPT / 100);
  }, 120_000);

  it('reads, in each statement, about as many rows as it returns', async () => {
    const { expiredEventsProbe, purgeVictims } = await import('../../src/modules/evidence/retention.repo.ts');
    const { boundedTx } = await import('../../src/modules/evidence/retention-locks.ts');
    const now = t.clock.now();
    const cutoff = new Date(now.getTime() - 30 * DAY);
    const kept = {
      organizationId: tenant.organizationId,
      channelId: long.channelId,
      environment: 'live' as const,
      cutoff,
    };
    const gone = { ...kept, channelId: short.channelId };
    // A batch (of the channel that keeps its events, which has many before the cutoff), and the probe
    // that finds which channels have something to purge (one of them has nothing left), as retention
    // runs them: in its transactions, planned with their values. A partition where a channel has no
    // event must cost a seek, not a walk of the partition or of another index.
    for (const statement of [purgeVictims(kept, 500), expiredEventsProbe([gone, kept])]) {
      const explained = await boundedTx(t.store, 'rows', (tx) =>
        tx.execute(sql`explain (analyze, format json) ${statement}`),
      );
      const plan = (explained as unknown as { rows: Array<{ 'QUERY PLAN': unknown }> }).rows[0]['QUERY PLAN'];
      const top = (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan as Record<string, unknown>;
      let visited = 0;
      const walk = (node: Record<string, unknown>) => {
        const relation = node['Relation Name'];
        if (typeof relation === 'string' && relation.startsWith('evidence_events')) {
          const loops = Number(node['Actual Loops']);
          const rows = ['Actual Rows', 'Rows Removed by Filter', 'Rows Removed by Index Recheck'];
          visited += loops * rows.reduce((sum, key) => sum + Number(node[key] ?? 0), 0);
        }
        for (const child of (node.Plans as Array<Record<string, unknown>>) ?? []) walk(child);
      };
      walk(top);
      const returned = Number(top['Actual Rows']);
      expect(returned).toBeGreaterThan(0);
      expect(visited, JSON.stringify(top).slice(0, 2000)).toBeLessThanOrEqual(returned + 10);
    }
  });
});
