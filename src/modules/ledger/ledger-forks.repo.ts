import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { readRows } from '../../platform/db/rows.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import type { LedgerScope } from './ledger.repo.ts';
import { type LedgerForkRow, ledgerForks, ledgerLogs, ledgerTreeHeads } from './ledger.tables.ts';

const ofScope = (scope: LedgerScope) =>
  and(eq(ledgerForks.organizationId, scope.organizationId), eq(ledgerForks.environment, scope.environment));

/** The SQL of the ledger's fork records (ledger_forks). */
export const ledgerForksRepo = {
  /** Records a fork; false when one with the same signed head was already recorded (by another sealer). */
  async record(tx: Tx, fork: LedgerForkRow): Promise<boolean> {
    const inserted = await tx
      .insert(ledgerForks)
      .values(fork)
      .onConflictDoNothing()
      .returning({ logId: ledgerForks.logId });
    return inserted.length > 0;
  },

  /** The scope's fork not yet accepted, if any (the newest signed head first). */
  async open(db: Db, scope: LedgerScope): Promise<LedgerForkRow | undefined> {
    const [row] = await db
      .select()
      .from(ledgerForks)
      .where(and(ofScope(scope), isNull(ledgerForks.acceptedAt)))
      .orderBy(desc(ledgerForks.signedTreeSize))
      .limit(1);
    return row;
  },

  /**
   * In one statement, what the fork guard compares with a head it remembers signing: the root of
   * the database's stored head of that log and size (heads are never deleted: the head row and its
   * leaves commit together), whether the scope has a fork not yet accepted, when one was last
   * accepted, and the database's log for the scope. Primary-key lookups only.
   */
  async witnessCheck(db: Db, scope: LedgerScope, head: { logId: string; treeSize: number }) {
    const [row] = await readRows<{
      head_root: Uint8Array | null;
      open: boolean;
      accepted: string | null;
      log_id: string | null;
      tree_size: number | null;
    }>(
      db,
      sql`
      select
        (select root_hash from ${ledgerTreeHeads}
          where organization_id = ${scope.organizationId} and log_id = ${head.logId}
            and tree_size = ${head.treeSize}) as head_root,
        exists (select 1 from ${ledgerForks}
          where organization_id = ${scope.organizationId} and environment = ${scope.environment}
            and accepted_at is null) as open,
        (select max(accepted_at) from ${ledgerForks}
          where organization_id = ${scope.organizationId} and environment = ${scope.environment}) as accepted,
        l.id as log_id, l.tree_size
      from (select 1) as one
      left join ${ledgerLogs} l
        on l.organization_id = ${scope.organizationId} and l.environment = ${scope.environment}`,
    );
    return {
      headRoot: row.head_root ? Buffer.from(row.head_root) : null,
      open: row.open,
      accepted: row.accepted ? new Date(row.accepted) : null,
      log: row.log_id === null ? null : { id: row.log_id, treeSize: Number(row.tree_size) },
    };
  },

  /** Accepts the scope's open forks (the database's tree is the log from now on); returns them. */
  async accept(tx: Tx, scope: LedgerScope, now: Date): Promise<LedgerForkRow[]> {
    return tx
      .update(ledgerForks)
      .set({ acceptedAt: now })
      .where(and(ofScope(scope), isNull(ledgerForks.acceptedAt)))
      .returning();
  },

  /** Every fork recorded, newest first (the CLI's list), at most `limit`. */
  list(db: Db, limit: number): Promise<LedgerForkRow[]> {
    return db.select().from(ledgerForks).orderBy(desc(ledgerForks.detectedAt)).limit(limit);
  },

  /** Forks not yet accepted, all organizations together (the metric). */
  async openCount(db: Db): Promise<number> {
    const [row] = await db.select({ n: count() }).from(ledgerForks).where(isNull(ledgerForks.acceptedAt));
    return Number(row?.n ?? 0);
  },
};
