import { type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.ts';
import { pgErrorOf } from '../../platform/db/pg-errors.ts';
import { readRows, rowsOf } from '../../platform/db/rows.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import { consentStateRepo, type PurgedEvent } from './consent-state.repo.ts';
import { retentionRepo } from './retention.repo.ts';
import { boundedTx, type Deferred, deferredBy } from './retention-locks.ts';

/**
 * evidence_events is partitioned by environment, then by time (migration `evidence_partitions`): test
 * events by the UTC hour (`evidence_events_test_pYYYYMMDDHH`), live ones by the UTC month
 * (`evidence_events_live_pYYYYMM`). The test side has a DEFAULT partition for an event outside the hours
 * made so far; the live side has none (migration `evidence_live_no_default`: pages then read the months
 * newest first), so its months are made at start (on PostgreSQL), by the job, and by a write that finds none
 * (createPartitionsFor). The retention job keeps partitions made ahead and drops the expired
 * ones whole: no row is updated, no dead tuple is left. Every partition change it makes waits for its
 * locks briefly (retention-locks.ts), so no tenant's read or write ever queues behind it for long.
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
  /** The inclusive lower bound of its recordedAt range. */
  lower: Date;
  /** The exclusive upper bound of its recordedAt range. */
  upper: Date;
  attached: boolean;
}

function parse(name: string, attached: boolean): Partition | null {
  const test = TEST_PARTITION.exec(name);
  if (test) {
    const [, y, m, d, h] = test.map(Number);
    const lower = new Date(Date.UTC(y, m - 1, d, h));
    return { name, environment: 'test', lower, upper: new Date(lower.getTime() + HOUR), attached };
  }
  const live = LIVE_PARTITION.exec(name);
  if (live) {
    const [, y, m] = live.map(Number);
    return {
      name,
      environment: 'live',
      lower: new Date(Date.UTC(y, m - 1, 1)),
      upper: new Date(Date.UTC(y, m, 1)),
      attached,
    };
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

/**
 * Where the partitions the next inserts need start: test hours from the last to two ahead, live
 * months from this one to three ahead (evidence_partition_create rounds each down to its range).
 */
function partitionsAhead(now: Date): Array<{ environment: 'test' | 'live'; at: Date; name: string }> {
  const hour = (at: Date) => at.toISOString().slice(0, 13).replace(/[-T]/g, '');
  const starts: Array<{ environment: 'test' | 'live'; at: Date; name: string }> = [];
  for (let at = now.getTime() - HOUR; at <= now.getTime() + TEST_AHEAD_MS; at += HOUR) {
    starts.push({
      environment: 'test',
      at: new Date(at),
      name: `evidence_events_test_p${hour(new Date(at))}`,
    });
  }
  for (let k = 0; k <= LIVE_AHEAD_MONTHS; k++) {
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1));
    starts.push({ environment: 'live', at, name: `evidence_events_live_p${hour(at).slice(0, 6)}` });
  }
  return starts;
}

/**
 * Makes the partitions the next inserts need (partitionsAhead) that do not exist yet, each in a
 * transaction of its own with bounded lock waits: attaching a test hour locks the test DEFAULT
 * partition, which every generic plan over evidence_events reads. One that cannot be made now is
 * left for the next run (its events wait in the DEFAULT partition meanwhile; a live write that finds
 * no month makes it itself, createPartitionsFor). Returns what was left.
 */
export async function createPartitionsAhead(deps: { store: Store; clock: Clock }): Promise<Deferred[]> {
  const { store } = deps;
  const existing = new Set((await partitions(store)).filter((p) => p.attached).map((p) => p.name));
  const deferred: Deferred[] = [];
  for (const start of partitionsAhead(deps.clock.now())) {
    if (existing.has(start.name)) continue;
    try {
      await boundedTx(store, 'ddl', (tx) =>
        tx.execute(
          sql`select evidence_partition_create(${start.environment}, ${start.at.toISOString()}::timestamptz)`,
        ),
      );
    } catch (error) {
      deferred.push(deferredBy(error, 'create_partition', start.name));
    }
  }
  return deferred;
}

/**
 * Whether every event of a live partition is past its channel's retention. The partition's channels
 * are read with a skip scan of the channel index (one probe per channel, not a walk of its events);
 * a channel that keeps that month longer, or an event whose channel row is missing, holds it back.
 */
async function liveExpired(store: Store, p: Partition, now: Date): Promise<boolean> {
  return !(await boundedTx(store, 'rows', (tx) => retentionRepo.liveMonthHeld(tx, p.name, p.upper, now)));
}

/** What dropExpiredPartitions did: the partitions dropped, and those left for the next run. */
export interface PartitionDrops {
  dropped: string[];
  deferred: Deferred[];
  /** The start of the oldest live partition still attached (null: none), where the row purge starts. */
  oldestLive: Date | null;
}

/**
 * Drops the expired partitions: test ones whose hour ended more than 24 hours ago, live ones whose
 * month every channel with events there has outlived. Each is detached (a lock of its environment's
 * table for a moment, waited for at most RETENTION_LOCK_TIMEOUT_MS), then the consent state forgets
 * its events in batches (its rows that pointed at one fall back to the newest decision left), then
 * it is dropped. A run that stops between those steps leaves a detached partition, which the next
 * run finishes. A partition that cannot be detached or dropped now (a long read holds its table, or
 * another database role owns it) is left for the next run, and the others go on.
 */
export async function dropExpiredPartitions(deps: {
  store: Store;
  clock: Clock;
  testRetentionMs: number;
}): Promise<PartitionDrops> {
  const { store } = deps;
  const now = deps.clock.now();
  const testCutoff = now.getTime() - deps.testRetentionMs;
  const minLiveDays = await retentionRepo.minLiveRetentionDays(store.db);
  const result: PartitionDrops = { dropped: [], deferred: [], oldestLive: null };
  const keep = (p: Partition) => {
    if (p.environment === 'live' && (result.oldestLive === null || p.lower < result.oldestLive)) {
      result.oldestLive = p.lower;
    }
  };
  for (const p of await partitions(store)) {
    try {
      if (p.attached) {
        if (p.environment === 'test' && p.upper.getTime() > testCutoff) continue;
        if (p.environment === 'live') {
          if (p.upper.getTime() > now.getTime() - minLiveDays * DAY || !(await liveExpired(store, p, now))) {
            keep(p);
            continue;
          }
        }
        if (await detach(store, p)) {
          result.dropped.push(p.name);
          continue;
        }
      }
      await forgetEvents(store, p.name);
      await boundedTx(store, 'ddl', (tx) => tx.execute(sql`drop table if exists ${sql.identifier(p.name)}`));
      result.dropped.push(p.name);
    } catch (error) {
      result.deferred.push(deferredBy(error, 'drop_partition', p.name));
      if (p.attached) keep(p);
    }
  }
  return result;
}

/**
 * Detaches `p`, its lock waits bounded. An empty partition (one made ahead for an hour without
 * events) is dropped in the same transaction, checked once detached, when no insert can reach it any
 * more; returns whether it was.
 */
async function detach(store: Store, p: Partition): Promise<boolean> {
  return boundedTx(store, 'ddl', async (tx) => {
    const table = sql.identifier(p.name);
    await tx.execute(
      sql`alter table ${sql.identifier(`evidence_events_${p.environment}`)} detach partition ${table}`,
    );
    const [row] = rowsOf<{ filled: boolean }>(
      await tx.execute(sql`select exists (select 1 from ${table}) as filled`),
    );
    if (row.filled) return false;
    await tx.execute(sql`drop table ${table}`);
    return true;
  });
}

/** The consent state's rows (and TC strings) that point at an event of the detached `table` are rebuilt. */
async function forgetEvents(store: Store, table: string): Promise<void> {
  const t = sql.identifier(table);
  let after: SQL = sql``;
  for (;;) {
    const done = await boundedTx(store, 'rows', async (tx: Tx) => {
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
