import { type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.ts';
import { pgErrorOf } from '../../platform/db/pg-errors.ts';
import { readRows, rowsOf } from '../../platform/db/rows.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import { consentStateRepo, type PurgedEvent } from './consent-state.repo.ts';
import { evidenceRepo } from './evidence.repo.ts';

/**
 * evidence_events is partitioned by environment, then by time (migration `evidence_partitions`): test
 * events by the UTC hour (`evidence_events_test_pYYYYMMDDHH`), live ones by the UTC month
 * (`evidence_events_live_pYYYYMM`). The test side has a DEFAULT partition for an event outside the hours
 * made so far; the live side has none (migration `evidence_live_no_default`: pages then read the months
 * newest first), so its months are made at start (on PostgreSQL), by the job, and by a write that finds none
 * (createPartitionsFor). The retention job keeps partitions made ahead and drops the expired
 * ones whole: no row is updated, no dead tuple is left.
 */
const HOUR = 3600_000;
const DAY = 24 * HOUR;
/**
 * Test partitions are made this far ahead (the job runs hourly): the current hour and the next two.
 * Few, since each is a table with its indexes; an event past them waits in the DEFAULT partition
 * and is moved into its hour's partition when that is made.
 */
export const TEST_AHEAD_MS = 2 * HOUR;
/** Live partitions are made this many months ahead. */
export const LIVE_AHEAD_MONTHS = 3;
/** Events per transaction when the consent state forgets a dropped partition's events. */
const REBUILD_BATCH = 2000;

const TEST_PARTITION = /^evidence_events_test_p(\d{4})(\d{2})(\d{2})(\d{2})$/;
const LIVE_PARTITION = /^evidence_events_live_p(\d{4})(\d{2})$/;

interface Partition {
  name: string;
  environment: 'test' | 'live';
  /** The exclusive upper bound of its recordedAt range. */
  upper: Date;
  attached: boolean;
}

function parse(name: string, attached: boolean): Partition | null {
  const test = TEST_PARTITION.exec(name);
  if (test) {
    const [, y, m, d, h] = test.map(Number);
    return { name, environment: 'test', upper: new Date(Date.UTC(y, m - 1, d, h + 1)), attached };
  }
  const live = LIVE_PARTITION.exec(name);
  if (live) {
    const [, y, m] = live.map(Number);
    return { name, environment: 'live', upper: new Date(Date.UTC(y, m, 1)), attached };
  }
  return null;
}

async function partitions(store: Store): Promise<Partition[]> {
  const rows = await readRows(
    store.db,
    sql`
      select c.relname as name, exists (select 1 from pg_inherits i where i.inhrelid = c.oid) as attached
      from pg_class c
      where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace
        and c.relname ~ '^evidence_events_(test_p[0-9]{10}|live_p[0-9]{6})$'`,
  );
  return rows.map((r) => parse(r.name as string, r.attached as boolean)).filter((p) => p !== null);
}

/** Makes the partitions the next inserts need: test ones two hours ahead, live ones three months ahead. */
export async function createPartitionsAhead(deps: { store: Store; clock: Clock }): Promise<void> {
  const now = deps.clock.now();
  const liveAhead = new Date(now);
  liveAhead.setUTCMonth(liveAhead.getUTCMonth() + LIVE_AHEAD_MONTHS);
  await deps.store.tx((tx) =>
    tx.execute(sql`select evidence_partitions_ensure('test', ${new Date(now.getTime() - HOUR).toISOString()}::timestamptz,
      ${new Date(now.getTime() + TEST_AHEAD_MS).toISOString()}::timestamptz)`),
  );
  await deps.store.tx((tx) =>
    tx.execute(sql`select evidence_partitions_ensure('live', ${now.toISOString()}::timestamptz,
      ${liveAhead.toISOString()}::timestamptz)`),
  );
}

/**
 * Whether every event of a live partition is past its channel's retention. The partition's channels
 * are read with a skip scan of the channel index (one probe per channel, not a walk of its events);
 * a channel that keeps that month longer, or an event whose channel row is missing, holds it back.
 */
async function liveExpired(store: Store, p: Partition, now: Date): Promise<boolean> {
  return !(await evidenceRepo.liveMonthHeld(store.db, p.name, p.upper, now));
}

/**
 * Drops the expired partitions: test ones whose hour ended more than 24 hours ago, live ones whose
 * month every channel with events there has outlived. Each is detached (a short lock of its
 * environment's table), then the consent state forgets its events in batches (its rows that pointed
 * at one fall back to the newest decision left), then it is dropped. A run that stops between those
 * steps leaves a detached partition, which the next run finishes. Returns the names dropped.
 */
export async function dropExpiredPartitions(deps: {
  store: Store;
  clock: Clock;
  testRetentionMs: number;
}): Promise<string[]> {
  const { store } = deps;
  const now = deps.clock.now();
  const testCutoff = now.getTime() - deps.testRetentionMs;
  const minLiveDays = await evidenceRepo.minLiveRetentionDays(store.db);
  const dropped: string[] = [];
  for (const p of await partitions(store)) {
    if (p.attached) {
      if (p.environment === 'test' && p.upper.getTime() > testCutoff) continue;
      if (p.environment === 'live') {
        if (p.upper.getTime() > now.getTime() - minLiveDays * DAY) continue;
        if (!(await liveExpired(store, p, now))) continue;
      }
      const [row] = await readRows(
        store.db,
        sql`select exists (select 1 from ${sql.identifier(p.name)}) as filled`,
      );
      if (row.filled) {
        await store.tx((tx) =>
          tx.execute(
            sql`alter table ${sql.identifier(`evidence_events_${p.environment}`)} detach partition ${sql.identifier(p.name)}`,
          ),
        );
      }
    }
    // An empty partition (one made ahead for an hour without events) is dropped at once.
    await forgetEvents(store, p.name);
    await store.tx((tx) => tx.execute(sql`drop table if exists ${sql.identifier(p.name)}`));
    dropped.push(p.name);
  }
  return dropped;
}

/** The consent state's rows (and TC strings) that point at an event of the detached `table` are rebuilt. */
async function forgetEvents(store: Store, table: string): Promise<void> {
  const t = sql.identifier(table);
  let after: SQL = sql``;
  for (;;) {
    const done = await store.tx(async (tx: Tx) => {
      const rows = rowsOf(
        await tx.execute(sql`
          select p.organization_id, p.environment, p.id, p.channel_id, p.subject_pseudonym from ${t} p
          where p.subject_pseudonym is not null and p.purged_at is null ${after}
            and (exists (select 1 from consent_state s where s.organization_id = p.organization_id
                  and s.channel_id = p.channel_id and s.subject_pseudonym = p.subject_pseudonym and s.event_id = p.id)
              or exists (select 1 from consent_state_tc_strings s where s.organization_id = p.organization_id
                  and s.channel_id = p.channel_id and s.subject_pseudonym = p.subject_pseudonym and s.event_id = p.id))
          order by p.organization_id, p.id
          limit ${REBUILD_BATCH}`),
      );
      const events: PurgedEvent[] = rows.map((r) => ({
        organizationId: r.organization_id as string,
        environment: r.environment as string,
        id: r.id as string,
        channelId: r.channel_id as string,
        subjectPseudonym: r.subject_pseudonym as string,
      }));
      await consentStateRepo.rebuildAfterPurge(tx, events);
      const last = events.at(-1);
      if (last) after = sql`and (p.organization_id, p.id) > (${last.organizationId}, ${last.id})`;
      return events.length < REBUILD_BATCH;
    });
    if (done) return;
  }
}

/** PostgreSQL's "no partition of relation … found for row" (an insert whose month has no partition). */
export function isMissingPartition(error: unknown): boolean {
  const info = pgErrorOf(error);
  return info?.code === '23514' && info.constraint === undefined;
}

/**
 * Makes the partitions that `rows` need. The live side has no DEFAULT partition (migration
 * `evidence_live_no_default`), so a live event whose month was never made (the job stopped for
 * months, or a clock far ahead) is refused by PostgreSQL; the writer then calls this and retries, so
 * no write is lost. Test events still fall into their DEFAULT partition and need nothing here.
 */
export async function createPartitionsFor(
  store: Store,
  rows: readonly { environment: string; recordedAt: Date }[],
) {
  const months = new Set<string>();
  for (const row of rows) {
    if (row.environment !== 'live') continue;
    const at = row.recordedAt;
    months.add(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString());
  }
  for (const month of months) {
    await store.tx((tx) => tx.execute(sql`select evidence_partition_create('live', ${month}::timestamptz)`));
  }
}
