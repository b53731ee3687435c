import { type SQL, sql } from 'drizzle-orm';
import { readRows, rowsOf } from '../../platform/db/rows.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { liveChannelRetention } from '../channels/channel-retention.sql.ts';
import { consentStateRepo } from './consent-state.repo.ts';
import { evidenceEvents } from './evidence.tables.ts';

const e = evidenceEvents;

/** One channel's expired events, which the row purge empties in batches (retention.ts). */
export interface PurgeTarget {
  organizationId: string;
  channelId: string;
  /** Live: any kept month; test: the DEFAULT partition only (the hours are dropped whole). */
  environment: 'test' | 'live';
  /** Its events recorded before this are expired. */
  cutoff: Date;
}

/** What a purge empties of an event: everything about the visitor, nothing the ledger needs. */
const PURGED_COLUMNS = [
  e.subjectPseudonym,
  e.decisions,
  e.configVersion,
  e.policyVersion,
  e.source,
  e.language,
  e.gpc,
  e.origin,
  e.userAgent,
  e.ipPrefix,
  e.region,
  e.regionSource,
  e.regime,
  e.gppString,
  e.tcString,
  e.tcf,
  e.subjectKind,
  e.gpcHonoredShown,
  e.handoff,
  e.importedFrom,
  e.app,
  e.outcome,
  e.receiptTokenHash,
];

/** The table a target's events are in: the test DEFAULT partition, or the whole live side. */
const tableOf = (target: PurgeTarget) =>
  target.environment === 'test' ? sql`evidence_events_test_default` : sql`${e}`;

/** The target's expired unpurged events, as a condition on `ev`. */
const expiredOf = (target: PurgeTarget) => sql`ev.organization_id = ${target.organizationId}
  and ev.environment = ${target.environment} and ev.channel_id = ${target.channelId} and ev.purged_at is null
  and ev.recorded_at < ${target.cutoff.toISOString()}::timestamptz`;

/**
 * The events one batch of the row purge takes, and locks (SKIP LOCKED: two workers split the work
 * rather than wait): the target's unpurged events older than its cutoff, oldest first, found
 * through evidence_events_purge_idx (organization, channel, recordedAt, unpurged only), so a batch
 * visits the events it purges and none of another channel's. Exported for the test that reads
 * its plan.
 */
export function purgeVictims(target: PurgeTarget, batch: number): SQL {
  return sql`
    select ev.organization_id, ev.environment, ev.id, ev.channel_id, ev.subject_pseudonym, ev.recorded_at
    from ${tableOf(target)} ev
    where ${expiredOf(target)}
    order by ev.recorded_at
    limit ${batch}
    for update of ev skip locked`;
}

/** Probes per statement in withExpiredEvents. */
const PROBES_PER_STATEMENT = 100;

/**
 * One statement asking which of `targets` have an unpurged event before their cutoff: a subquery
 * per target, each with its own values, which the retention transaction plans with those values
 * (boundedTx): for "an event of channel X", a plan made for any channel may walk a whole partition
 * where X has none. Exported for the test that reads its plan.
 */
export function expiredEventsProbe(targets: PurgeTarget[]): SQL {
  return sql.join(
    targets.map(
      (target, k) =>
        sql`(select ${k}::int as k from ${tableOf(target)} ev where ${expiredOf(target)} limit 1)`,
    ),
    sql` union all `,
  );
}

/** Those of `candidates` that have an unpurged event before their cutoff. */
async function withExpiredEvents(db: Db, candidates: PurgeTarget[]): Promise<PurgeTarget[]> {
  const found: PurgeTarget[] = [];
  for (let i = 0; i < candidates.length; i += PROBES_PER_STATEMENT) {
    const chunk = candidates.slice(i, i + PROBES_PER_STATEMENT);
    const rows = await readRows<{ k: number }>(db, expiredEventsProbe(chunk));
    for (const row of rows) found.push(chunk[Number(row.k)]);
  }
  return found;
}

export const retentionRepo = {
  /** The shortest retention (days) of any live channel; 1 when there is none. */
  async minLiveRetentionDays(db: Db): Promise<number> {
    const [row] = await readRows<{ d: number }>(
      db,
      sql`select coalesce(min(c.retention_days), 1) as d from ${liveChannelRetention} c`,
    );
    return Number(row.d);
  },

  /**
   * Whether a channel with events in the live partition `partition` (the month ending at `upper`)
   * still keeps that month at `now`. The partition's channels are read with a skip scan of the
   * channel index (one probe per channel, not a walk of its events); a channel that keeps the month
   * longer, or an event whose channel row is missing, holds it back (partitions.ts).
   */
  async liveMonthHeld(db: Db, partition: string, upper: Date, now: Date): Promise<boolean> {
    const part = sql.identifier(partition);
    const [row] = await readRows<{ held: boolean }>(
      db,
      sql`
      with recursive used as (
        (select organization_id, channel_id from ${part} where environment = 'live'
          order by organization_id, environment, channel_id limit 1)
        union all
        select n.organization_id, n.channel_id from used u cross join lateral (
          select organization_id, channel_id from ${part}
          where environment = 'live' and (organization_id, environment, channel_id) > (u.organization_id, 'live', u.channel_id)
          order by organization_id, environment, channel_id limit 1) n
      )
      select exists (
        select 1 from used u
        left join ${liveChannelRetention} c on c.organization_id = u.organization_id and c.channel_id = u.channel_id
        where c.channel_id is null
          or ${upper.toISOString()}::timestamptz > ${now.toISOString()}::timestamptz - make_interval(days => c.retention_days)
      ) as held`,
    );
    return row.held === true;
  },

  /**
   * The live channels with unpurged events past their retention in a month still kept (for a channel
   * that keeps longer). Only channels whose retention ends after `keptSince` (the start of the oldest
   * live partition) are probed, each with one seek per month before its cutoff: the cost is the
   * number of such channels, not the events the other channels keep.
   */
  async livePurgeTargets(db: Db, now: Date, keptSince: Date): Promise<PurgeTarget[]> {
    const cutoff = sql`${now.toISOString()}::timestamptz - make_interval(days => c.retention_days)`;
    const rows = await readRows<{ organization_id: string; channel_id: string; cutoff: Date | string }>(
      db,
      sql`select c.organization_id, c.channel_id, ${cutoff} as cutoff from ${liveChannelRetention} c
        where ${cutoff} > ${keptSince.toISOString()}::timestamptz order by 3, 1, 2`,
    );
    return withExpiredEvents(
      db,
      rows.map((r) => ({
        organizationId: r.organization_id,
        channelId: r.channel_id,
        environment: 'live',
        cutoff: new Date(r.cutoff),
      })),
    );
  },

  /**
   * The channels with test events recorded before `cutoff` in the DEFAULT partition (events outside
   * the hours made so far): its channels read with a skip scan of the purge index (one probe each),
   * then each one probed for an event before the cutoff.
   */
  async testPurgeTargets(db: Db, cutoff: Date): Promise<PurgeTarget[]> {
    const rows = await readRows<{ organization_id: string; channel_id: string }>(
      db,
      sql`
      with recursive used as (
        (select organization_id, channel_id from evidence_events_test_default where purged_at is null
          order by organization_id, channel_id limit 1)
        union all
        select n.organization_id, n.channel_id from used u cross join lateral (
          select d.organization_id, d.channel_id from evidence_events_test_default d
          where d.purged_at is null and (d.organization_id, d.channel_id) > (u.organization_id, u.channel_id)
          order by d.organization_id, d.channel_id limit 1) n
      )
      select organization_id, channel_id from used`,
    );
    return withExpiredEvents(
      db,
      rows.map((r) => ({
        organizationId: r.organization_id,
        channelId: r.channel_id,
        environment: 'test',
        cutoff,
      })),
    );
  },

  /**
   * Purges up to `batch` events of `target`: empties their content (keeping id, channel, recordedAt
   * and receipt hash, which the ledger needs) and lets the consent state forget them, its rows that
   * pointed at one falling back to the newest decision left. Returns how many were purged.
   */
  async purgeBatch(tx: Tx, target: PurgeTarget, now: Date, batch: number): Promise<number> {
    const emptied = sql.join(
      [
        ...PURGED_COLUMNS.map((column) => sql`${sql.identifier(column.name)} = null`),
        sql`purged_at = ${now.toISOString()}::timestamptz`,
      ],
      sql`, `,
    );
    // The victims (and their subjects, read before the update nulls them), then their update, by
    // primary key within the batch's stretch of time (widened by a millisecond each way: a Date
    // holds milliseconds, the column microseconds), so no plan reads more than the batch.
    const purged = rowsOf<{
      organization_id: string;
      environment: string;
      id: string;
      channel_id: string;
      subject_pseudonym: string;
      recorded_at: Date | string;
    }>(await tx.execute(purgeVictims(target, batch)));
    if (purged.length === 0) return 0;
    const times = purged.map((r) => new Date(r.recorded_at).getTime());
    const from = new Date(Math.min(...times) - 1).toISOString();
    const to = new Date(Math.max(...times) + 1).toISOString();
    await tx.execute(sql`
      update ${tableOf(target)} ev set ${emptied}
      where ev.organization_id = ${target.organizationId} and ev.environment = ${target.environment}
        and ev.channel_id = ${target.channelId} and ev.purged_at is null
        and ev.recorded_at >= ${from}::timestamptz and ev.recorded_at <= ${to}::timestamptz
        and ev.id in (${sql.join(
          purged.map((r) => sql`${r.id}`),
          sql`, `,
        )})`);
    await consentStateRepo.rebuildAfterPurge(
      tx,
      purged.map((r) => ({
        organizationId: r.organization_id,
        environment: r.environment,
        id: r.id,
        channelId: r.channel_id,
        subjectPseudonym: r.subject_pseudonym,
      })),
    );
    return purged.length;
  },
};
