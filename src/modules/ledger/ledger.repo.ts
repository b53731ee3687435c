import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { readQuery, rowsOf } from '../../platform/db/rows.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import {
  type LedgerLogRow,
  type LedgerTreeHeadRow,
  ledgerLeaves,
  ledgerLogs,
  ledgerNodes,
  ledgerPending,
  ledgerTreeHeads,
} from './ledger.tables.ts';
import type { NodeHashes, NodeRef } from './merkle.ts';
import { BLOCK_SIZE, nodesFromSources, sourcesOf } from './merkle-blocks.ts';

export interface LedgerScope {
  organizationId: string;
  environment: Environment;
}

/** Raw row of `signedLog`: int8 as number (store.ts), timestamptz as text (drizzle's drivers), bytea as bytes. */
interface SignedLogRow {
  id: string;
  created_at: string;
  tree_size: number;
  signed_size: number;
  root_hash: Uint8Array;
  timestamp: string;
  key_id: string;
  signature: Uint8Array;
  leaf_index: number | null;
  leaf_hash: Uint8Array | null;
}

/** The ledger's SQL but the sealing queue's (ledger-queue.repo.ts). Hashes are bytea here; hex is for the API. */
export const ledgerRepo = {
  async ensureLog(tx: Tx, scope: LedgerScope, id: string, now: Date): Promise<void> {
    await tx
      .insert(ledgerLogs)
      .values({ ...scope, id, treeSize: 0, signedSize: 0, createdAt: now })
      .onConflictDoNothing();
  },

  async findLog(db: Db, scope: LedgerScope): Promise<LedgerLogRow | undefined> {
    const [row] = await db
      .select()
      .from(ledgerLogs)
      .where(
        and(
          eq(ledgerLogs.organizationId, scope.organizationId),
          eq(ledgerLogs.environment, scope.environment),
        ),
      );
    return row;
  },

  /** Seconds the oldest event waiting to be sealed has waited at `now` (null when none waits). */
  async sealLag(db: Db, now: Date): Promise<number | null> {
    const rows = rowsOf<{ lag: number | null }>(
      await readQuery(
        db,
        sql`select extract(epoch from (${now.toISOString()}::timestamptz - min(recorded_at)))::float8 as lag from ${ledgerPending}`,
      ),
    );
    return rows[0]?.lag ?? null;
  },

  /** One sealer per log: held until the transaction ends (on PGlite transactions are serial anyway). */
  async lockLog(tx: Tx, logId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`ledger:${logId}`}, 0))`);
  },

  /** Logs with work: queued events, or leaves appended but not yet signed (a crash between the steps). */
  async scopesToSeal(db: Db): Promise<LedgerScope[]> {
    const result = await readQuery(
      db,
      sql`
      select distinct organization_id, environment from ${ledgerPending}
      union
      select organization_id, environment from ${ledgerLogs} where tree_size > signed_size`,
    );
    return rowsOf<{ organization_id: string; environment: Environment }>(result).map((r) => ({
      organizationId: r.organization_id,
      environment: r.environment,
    }));
  },

  async setSizes(
    tx: Tx,
    log: LedgerLogRow,
    sizes: { treeSize?: number; signedSize?: number },
  ): Promise<void> {
    await tx
      .update(ledgerLogs)
      .set(sizes)
      .where(and(eq(ledgerLogs.organizationId, log.organizationId), eq(ledgerLogs.id, log.id)));
  },

  /**
   * The perfect subtree hashes named; missing ones are simply absent. Stored nodes are read by key,
   * the small ones folded from their blocks of leaves (merkle-blocks.ts), in one statement.
   *
   * Every read is a single-key or single-range lookup (a lateral subquery per wanted node or block,
   * whose LIMIT keeps the planner from flattening it into a join), a plan that holds without
   * statistics. A list of keys (IN, = ANY, an OR per level) is planned,
   * with none (PGlite never gathers any; PostgreSQL only once autoanalyze has run), as a scan of the
   * log's whole prefix of the index: O(n) per proof instead of O(log n).
   */
  async nodes(db: Db, log: LedgerLogRow, refs: NodeRef[]): Promise<NodeHashes> {
    if (refs.length === 0) return new Map();
    const { stored, blocks } = sourcesOf(refs);
    const result = await readQuery(
      db,
      sql`
      select 0 as level, l.leaf_index as node_index, l.leaf_hash as hash
      from unnest(${sql.param(blocks)}::bigint[]) as w(block_start)
      cross join lateral (
        select leaf_index, leaf_hash from ${ledgerLeaves}
        where organization_id = ${log.organizationId} and log_id = ${log.id}
          and leaf_index >= w.block_start and leaf_index < w.block_start + ${BLOCK_SIZE}::bigint
        limit ${BLOCK_SIZE}
      ) l
      union all
      select w.level, w.node_index, n.hash
      from unnest(
        ${sql.param(stored.map((r) => r.level))}::smallint[],
        ${sql.param(stored.map((r) => r.index))}::bigint[]
      ) as w(level, node_index)
      cross join lateral (
        select hash from ${ledgerNodes}
        where organization_id = ${log.organizationId} and log_id = ${log.id}
          and level = w.level and node_index = w.node_index
        limit 1
      ) n`,
    );
    const rows = rowsOf<{ level: number; node_index: number; hash: Uint8Array }>(result).map((r) => ({
      level: r.level,
      index: r.node_index,
      hash: Buffer.from(r.hash),
    }));
    return nodesFromSources(
      rows.filter((r) => r.level > 0),
      rows.filter((r) => r.level === 0),
    );
  },

  async insertTreeHead(tx: Tx, head: LedgerTreeHeadRow): Promise<void> {
    await tx.insert(ledgerTreeHeads).values(head);
  },

  /**
   * A scope's log with its newest signed tree head (the one at signed_size, written in the same
   * transaction), and where `eventId`, if given, sits in the log; undefined while nothing is signed.
   * One statement of primary-key lookups (LIMIT 1 laterals, for the reason given at `nodes`: a plain
   * join is planned, without statistics, as a scan of every head of the organization).
   */
  async signedLog(db: Db, scope: LedgerScope, eventId: string | null = null) {
    const result = await readQuery(
      db,
      sql`
      select l.id, l.created_at, l.tree_size, l.signed_size,
        h.root_hash, h."timestamp", h.key_id, h.signature, f.leaf_index, f.leaf_hash
      from ${ledgerLogs} l
      cross join lateral (
        select root_hash, "timestamp", key_id, signature from ${ledgerTreeHeads}
        where organization_id = l.organization_id and log_id = l.id and tree_size = l.signed_size
        limit 1
      ) h
      left join lateral (
        select leaf_index, leaf_hash from ${ledgerLeaves}
        where organization_id = l.organization_id and event_id = ${eventId} and log_id = l.id
        limit 1
      ) f on true
      where l.organization_id = ${scope.organizationId} and l.environment = ${scope.environment}`,
    );
    const [row] = rowsOf<SignedLogRow>(result);
    if (!row) return undefined;
    const log: LedgerLogRow = {
      ...scope,
      id: row.id,
      treeSize: row.tree_size,
      signedSize: row.signed_size,
      // new Date(text) is how drizzle maps these columns, so a head reads the same either way.
      createdAt: new Date(row.created_at),
    };
    const head: LedgerTreeHeadRow = {
      organizationId: scope.organizationId,
      environment: scope.environment,
      logId: row.id,
      treeSize: row.signed_size,
      rootHash: Buffer.from(row.root_hash),
      timestamp: new Date(row.timestamp),
      keyId: row.key_id,
      signature: Buffer.from(row.signature),
    };
    const leaf =
      row.leaf_index === null
        ? null
        : { eventId: eventId!, leafIndex: row.leaf_index, leafHash: Buffer.from(row.leaf_hash!) };
    return { log, head, leaf };
  },

  /** Newest first (largest tree first), limit + 1 rows, strictly below `beforeSize` when given. */
  listTreeHeads(db: Db, log: LedgerLogRow, limit: number, beforeSize: number | null) {
    return db
      .select()
      .from(ledgerTreeHeads)
      .where(
        and(
          eq(ledgerTreeHeads.organizationId, log.organizationId),
          eq(ledgerTreeHeads.logId, log.id),
          beforeSize === null ? undefined : lt(ledgerTreeHeads.treeSize, beforeSize),
        ),
      )
      .orderBy(desc(ledgerTreeHeads.treeSize))
      .limit(limit + 1);
  },

  /**
   * Where events sit in a log, for those appended to it. Single-row lookups by the unique event key,
   * for the reason given at `nodes`.
   */
  async findLeaves(db: Db, log: LedgerLogRow, eventIds: string[]) {
    if (eventIds.length === 0) return [];
    const result = await readQuery(
      db,
      sql`
      select w.event_id, l.leaf_index, l.leaf_hash
      from unnest(${sql.param(eventIds)}::text[]) as w(event_id)
      cross join lateral (
        select leaf_index, leaf_hash, log_id from ${ledgerLeaves}
        where organization_id = ${log.organizationId} and event_id = w.event_id
        limit 1
      ) l
      where l.log_id = ${log.id}`,
    );
    return rowsOf<{ event_id: string; leaf_index: number; leaf_hash: Uint8Array }>(result).map((r) => ({
      eventId: r.event_id,
      leafIndex: r.leaf_index,
      leafHash: Buffer.from(r.leaf_hash),
    }));
  },
};
