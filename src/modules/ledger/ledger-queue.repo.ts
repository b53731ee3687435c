import { sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/db/rows.ts';
import type { Tx } from '../../platform/db/store.ts';
import type { LedgerScope } from './ledger.repo.ts';
import { type LedgerLogRow, ledgerLeaves, ledgerLogs, ledgerNodes, ledgerPending } from './ledger.tables.ts';
import type { NodeRef } from './merkle.ts';

/** A queued event, as the sealer appends it. */
export interface PendingLeaf {
  eventId: string;
  /** Hex, as the queue and the evidence row keep it. */
  leafHash: string;
  /**
   * recorded_at as PostgreSQL prints it, so that it goes back into SQL exactly (a JS Date would
   * drop the microseconds and misplace the batch's bounds).
   */
  recordedAt: string;
}

/** One append: the queued events taken, in order, and the stored perfect subtrees they complete (merkle-blocks.ts). */
export interface AppendBatch {
  log: Pick<LedgerLogRow, 'organizationId' | 'id' | 'environment'>;
  /** The log's size before the append: the first leaf's index. */
  size: number;
  leaves: PendingLeaf[];
  nodes: Array<NodeRef & { hash: Buffer }>;
}

const CURSOR = sql.raw('ledger_pending_batch');

/** The sealer's side of the queue: read the next events in order, then append them in one statement. */
export const ledgerQueueRepo = {
  /**
   * The next `limit` queued events of a log in sealing order (recordedAt, id), after `after` when
   * given (the previous batch's last event: a run then never rescans what it already deleted).
   *
   * Read through a cursor because a cursor is planned to return its first rows fast, which means
   * walking ledger_pending_order_idx. A plain ORDER BY … LIMIT, planned without statistics (PGlite
   * never gathers any; PostgreSQL only once autoanalyze has run), fetches and sorts the log's whole
   * queue instead: a cost per batch that grows with the backlog.
   */
  async next(tx: Tx, scope: LedgerScope, limit: number, after: PendingLeaf | null): Promise<PendingLeaf[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`bad batch size ${limit}`);
    const afterCondition = after
      ? sql`and (recorded_at, event_id) > (${after.recordedAt}::timestamptz, ${after.eventId})`
      : sql``;
    await tx.execute(sql`
      declare ${CURSOR} no scroll cursor for
      select event_id, leaf_hash, recorded_at::text as recorded_at_text from ${ledgerPending}
      where organization_id = ${scope.organizationId} and environment = ${scope.environment} ${afterCondition}
      order by recorded_at, event_id`);
    const result = await tx.execute(sql`fetch forward ${sql.raw(String(limit))} from ${CURSOR}`);
    // Closed now rather than at commit: a caller's transaction may run several batches.
    await tx.execute(sql`close ${CURSOR}`);
    return rowsOf<{ event_id: string; leaf_hash: string; recorded_at_text: string }>(result).map((r) => ({
      eventId: r.event_id,
      leafHash: r.leaf_hash,
      recordedAt: r.recorded_at_text,
    }));
  },

  /**
   * Writes one batch in one statement (one round trip, array parameters instead of a parameter per
   * value): the leaves, the new perfect subtrees, the events' removal from the queue, the log's new
   * size. The leaves' unique event key makes a repeated seal of an event fail instead of forking.
   *
   * The dequeue names the batch's key range, which bounds the index scan whatever the planner knows
   * (an id list alone is planned, without statistics, as a scan of the organization's whole queue);
   * the id list keeps in the queue an event that arrived late inside that range (not read, so not
   * appended).
   */
  async append(tx: Tx, batch: AppendBatch): Promise<void> {
    const { log, size, leaves, nodes } = batch;
    const first = leaves[0];
    const last = leaves[leaves.length - 1];
    const eventIds = sql.param(leaves.map((l) => l.eventId));
    await tx.execute(sql`
      with appended_leaves as (
        insert into ${ledgerLeaves} (organization_id, environment, log_id, leaf_index, event_id, leaf_hash)
        select ${log.organizationId}, ${log.environment}, ${log.id}, ${size}::bigint + w.ordinal - 1,
          w.event_id, decode(w.leaf_hash, 'hex')
        from unnest(${eventIds}::text[], ${sql.param(leaves.map((l) => l.leafHash))}::text[])
          with ordinality as w(event_id, leaf_hash, ordinal)
      ), appended_nodes as (
        insert into ${ledgerNodes} (organization_id, environment, log_id, level, node_index, hash)
        select ${log.organizationId}, ${log.environment}, ${log.id}, w.level, w.node_index, decode(w.hash, 'hex')
        from unnest(
          ${sql.param(nodes.map((n) => n.level))}::smallint[],
          ${sql.param(nodes.map((n) => n.index))}::bigint[],
          ${sql.param(nodes.map((n) => n.hash.toString('hex')))}::text[]
        ) as w(level, node_index, hash)
      ), dequeued as (
        delete from ${ledgerPending}
        where organization_id = ${log.organizationId} and environment = ${log.environment}
          and (recorded_at, event_id) >= (${first.recordedAt}::timestamptz, ${first.eventId})
          and (recorded_at, event_id) <= (${last.recordedAt}::timestamptz, ${last.eventId})
          and event_id = any(${eventIds}::text[])
      )
      update ${ledgerLogs} set tree_size = ${size + leaves.length}
      where organization_id = ${log.organizationId} and id = ${log.id}`);
  },
};
