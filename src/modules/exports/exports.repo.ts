import { and, asc, eq, inArray, lt, lte, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { type ExportRow, type ExportStatus, evidenceExports as x } from './exports.tables.ts';

export interface ExportScope {
  organizationId: string;
  environment: Environment;
}

type Changes = Partial<Omit<ExportRow, 'organizationId' | 'id' | 'environment' | 'createdAt'>>;

export const exportsRepo = {
  async insert(tx: Tx, row: ExportRow): Promise<void> {
    await tx.insert(x).values(row);
  },

  async find(db: Db, scope: ExportScope, id: string): Promise<ExportRow | undefined> {
    const [row] = await db
      .select()
      .from(x)
      .where(
        and(eq(x.organizationId, scope.organizationId), eq(x.environment, scope.environment), eq(x.id, id)),
      );
    return row;
  },

  /** An export by organization and id, for the job (which is not tied to an environment). */
  async findForJob(db: Db, organizationId: string, id: string): Promise<ExportRow | undefined> {
    const [row] = await db
      .select()
      .from(x)
      .where(and(eq(x.organizationId, organizationId), eq(x.id, id)));
    return row;
  },

  list(db: Db, scope: ExportScope, limit: number, after: CursorPosition | null) {
    return keysetList(db, x, {
      where: [eq(x.organizationId, scope.organizationId), eq(x.environment, scope.environment)],
      limit,
      after,
    });
  },

  /**
   * Serializes export requests of one organization for the rest of the transaction, so two
   * concurrent requests cannot both pass the cap on unfinished exports.
   */
  async lockOrganization(tx: Tx, organizationId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`exports:${organizationId}`}, 0))`);
  },

  /** Queued or running exports of the organization, both environments together. */
  async countUnfinished(tx: Tx, organizationId: string): Promise<number> {
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(x)
      .where(and(eq(x.organizationId, organizationId), inArray(x.status, ['queued', 'running'])));
    return Number(row?.n ?? 0);
  },

  /**
   * Applies `changes` only while the export is in one of `from` states; returns the updated row or
   * undefined when it had moved on (a concurrent finish, an expiry), so transitions never go back.
   */
  async transition(
    tx: Tx,
    key: Pick<ExportRow, 'organizationId' | 'id'>,
    from: ExportStatus[],
    changes: Changes,
  ): Promise<ExportRow | undefined> {
    const [row] = await tx
      .update(x)
      .set(changes)
      .where(and(eq(x.organizationId, key.organizationId), eq(x.id, key.id), inArray(x.status, from)))
      .returning();
    return row;
  },

  /** Exports still queued or running that were asked for before `before`, at most 100. */
  staleUnfinished(db: Db, before: Date): Promise<ExportRow[]> {
    return db
      .select()
      .from(x)
      .where(and(inArray(x.status, ['queued', 'running']), lt(x.createdAt, before)))
      .limit(100);
  },

  /** Succeeded exports whose expiry has come, oldest first, locked so two workers split them. */
  dueToExpire(tx: Tx, now: Date, limit: number): Promise<ExportRow[]> {
    return tx
      .select()
      .from(x)
      .where(and(eq(x.status, 'succeeded'), lte(x.expiresAt, now)))
      .orderBy(asc(x.expiresAt))
      .limit(limit)
      .for('update', { skipLocked: true });
  },
};
