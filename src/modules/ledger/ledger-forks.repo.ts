import { and, count, desc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../platform/db/store.ts';
import type { LedgerScope } from './ledger.repo.ts';
import { type LedgerForkRow, ledgerForks } from './ledger.tables.ts';

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

  /** When an operator last accepted a fork of the scope: a head remembered as signed before it is superseded. */
  async lastAccepted(db: Db, scope: LedgerScope): Promise<Date | null> {
    const [row] = await db
      .select({ at: sql<string | null>`max(${ledgerForks.acceptedAt})` })
      .from(ledgerForks)
      .where(and(ofScope(scope), isNotNull(ledgerForks.acceptedAt)));
    return row?.at ? new Date(row.at) : null;
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
