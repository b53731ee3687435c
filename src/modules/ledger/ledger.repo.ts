import { and, asc, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { Db } from '../../platform/db/store.ts';
import {
  type LedgerLogRow,
  type LedgerTreeHeadRow,
  ledgerLeaves,
  ledgerLogs,
  ledgerNodes,
  ledgerPending,
  ledgerTreeHeads,
} from './ledger.tables.ts';
import { type NodeHashes, type NodeRef, nodeKey } from './merkle.ts';

export interface LedgerScope {
  organizationId: string;
  environment: Environment;
}

export interface NewLeaf {
  leafIndex: number;
  eventId: string;
  leafHash: Buffer;
}

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** All SQL of the ledger. Hashes are bytea here; hex is for the API. */
export const ledgerRepo = {
  async ensureLog(db: Db, scope: LedgerScope, id: string, now: Date): Promise<void> {
    await db
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

  /** One sealer per log: held until the transaction ends (on PGlite transactions are serial anyway). */
  async lockLog(tx: Db, logId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`ledger:${logId}`}, 0))`);
  },

  /** Logs with work: queued events, or leaves appended but not yet signed (a crash between the steps). */
  async scopesToSeal(db: Db): Promise<LedgerScope[]> {
    const result = await db.execute(sql`
      select distinct organization_id, environment from ${ledgerPending}
      union
      select organization_id, environment from ${ledgerLogs} where tree_size > signed_size`);
    return rowsOf<{ organization_id: string; environment: Environment }>(result).map((r) => ({
      organizationId: r.organization_id,
      environment: r.environment,
    }));
  },

  /** The next queued events in sealing order: recordedAt, then id. */
  pendingBatch(db: Db, scope: LedgerScope, limit: number) {
    return db
      .select({ eventId: ledgerPending.eventId, leafHash: ledgerPending.leafHash })
      .from(ledgerPending)
      .where(
        and(
          eq(ledgerPending.organizationId, scope.organizationId),
          eq(ledgerPending.environment, scope.environment),
        ),
      )
      .orderBy(asc(ledgerPending.recordedAt), asc(ledgerPending.eventId))
      .limit(limit);
  },

  async deletePending(db: Db, organizationId: string, eventIds: string[]): Promise<void> {
    await db
      .delete(ledgerPending)
      .where(and(eq(ledgerPending.organizationId, organizationId), inArray(ledgerPending.eventId, eventIds)));
  },

  async insertLeaves(db: Db, log: LedgerLogRow, leaves: NewLeaf[]): Promise<void> {
    if (leaves.length === 0) return;
    await db
      .insert(ledgerLeaves)
      .values(leaves.map((l) => ({ organizationId: log.organizationId, logId: log.id, ...l })));
  },

  async insertNodes(db: Db, log: LedgerLogRow, nodes: Array<NodeRef & { hash: Buffer }>): Promise<void> {
    if (nodes.length === 0) return;
    await db.insert(ledgerNodes).values(
      nodes.map((n) => ({
        organizationId: log.organizationId,
        logId: log.id,
        level: n.level,
        nodeIndex: n.index,
        hash: n.hash,
      })),
    );
  },

  async setSizes(
    db: Db,
    log: LedgerLogRow,
    sizes: { treeSize?: number; signedSize?: number },
  ): Promise<void> {
    await db
      .update(ledgerLogs)
      .set(sizes)
      .where(and(eq(ledgerLogs.organizationId, log.organizationId), eq(ledgerLogs.id, log.id)));
  },

  /** The perfect subtree hashes named; level 0 comes from the leaves. Missing ones are simply absent. */
  async nodes(db: Db, log: LedgerLogRow, refs: NodeRef[]): Promise<NodeHashes> {
    const found: NodeHashes = new Map();
    const leafIndexes = refs.filter((r) => r.level === 0).map((r) => r.index);
    const inner = refs.filter((r) => r.level > 0);
    if (leafIndexes.length > 0) {
      const rows = await db
        .select({ index: ledgerLeaves.leafIndex, hash: ledgerLeaves.leafHash })
        .from(ledgerLeaves)
        .where(
          and(
            eq(ledgerLeaves.organizationId, log.organizationId),
            eq(ledgerLeaves.logId, log.id),
            inArray(ledgerLeaves.leafIndex, leafIndexes),
          ),
        );
      for (const row of rows) found.set(nodeKey({ level: 0, index: row.index }), row.hash);
    }
    if (inner.length > 0) {
      // One condition per level (at most ~50): index lists, not a long tuple list.
      const byLevel = new Map<number, number[]>();
      for (const r of inner) byLevel.set(r.level, [...(byLevel.get(r.level) ?? []), r.index]);
      const rows = await db
        .select({ level: ledgerNodes.level, index: ledgerNodes.nodeIndex, hash: ledgerNodes.hash })
        .from(ledgerNodes)
        .where(
          and(
            eq(ledgerNodes.organizationId, log.organizationId),
            eq(ledgerNodes.logId, log.id),
            or(
              ...[...byLevel].map(([level, indexes]) =>
                and(eq(ledgerNodes.level, level), inArray(ledgerNodes.nodeIndex, indexes)),
              ),
            ),
          ),
        );
      for (const row of rows) found.set(nodeKey({ level: row.level, index: row.index }), row.hash);
    }
    return found;
  },

  async insertTreeHead(db: Db, head: LedgerTreeHeadRow): Promise<void> {
    await db.insert(ledgerTreeHeads).values(head);
  },

  async latestTreeHead(db: Db, log: LedgerLogRow): Promise<LedgerTreeHeadRow | undefined> {
    const [row] = await db
      .select()
      .from(ledgerTreeHeads)
      .where(and(eq(ledgerTreeHeads.organizationId, log.organizationId), eq(ledgerTreeHeads.logId, log.id)))
      .orderBy(desc(ledgerTreeHeads.treeSize))
      .limit(1);
    return row;
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

  /** Where an event sits in its scope's log, if it was appended. */
  async findLeaf(db: Db, scope: LedgerScope, eventId: string) {
    return ledgerRepo.findLeaves(db, scope, [eventId]).then((rows) => rows[0]);
  },

  findLeaves(db: Db, scope: LedgerScope, eventIds: string[]) {
    if (eventIds.length === 0) return Promise.resolve([]);
    return db
      .select({
        eventId: ledgerLeaves.eventId,
        leafIndex: ledgerLeaves.leafIndex,
        leafHash: ledgerLeaves.leafHash,
      })
      .from(ledgerLeaves)
      .innerJoin(
        ledgerLogs,
        and(
          eq(ledgerLogs.organizationId, ledgerLeaves.organizationId),
          eq(ledgerLogs.id, ledgerLeaves.logId),
        ),
      )
      .where(
        and(
          eq(ledgerLeaves.organizationId, scope.organizationId),
          eq(ledgerLogs.environment, scope.environment),
          inArray(ledgerLeaves.eventId, eventIds),
        ),
      );
  },
};
