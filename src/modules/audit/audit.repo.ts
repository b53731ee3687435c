import { eq, gte, lte, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { auditLogs } from './audit.tables.ts';

export type AuditRow = typeof auditLogs.$inferSelect;

export interface AuditFilters {
  action?: string;
  actorId?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
}

export const auditRepo = {
  async insert(tx: Tx, row: typeof auditLogs.$inferInsert): Promise<void> {
    await tx.insert(auditLogs).values(row);
  },

  /** Inserts the entry, or adds one to the count of the entry already holding its id. */
  async insertOrCount(tx: Tx, row: typeof auditLogs.$inferInsert): Promise<void> {
    await tx
      .insert(auditLogs)
      .values(row)
      .onConflictDoUpdate({
        target: [auditLogs.organizationId, auditLogs.id],
        set: { count: sql`${auditLogs.count} + 1` },
      });
  },

  list(
    db: Db,
    scope: { organizationId: string; environment: Environment },
    filters: AuditFilters,
    limit: number,
    after: CursorPosition | null,
  ): Promise<AuditRow[]> {
    return keysetList(db, auditLogs, {
      time: auditLogs.occurredAt,
      where: [
        eq(auditLogs.organizationId, scope.organizationId),
        eq(auditLogs.environment, scope.environment),
        filters.action ? eq(auditLogs.action, filters.action) : undefined,
        filters.actorId ? eq(auditLogs.actorId, filters.actorId) : undefined,
        filters.targetId ? eq(auditLogs.targetId, filters.targetId) : undefined,
        filters.from ? gte(auditLogs.occurredAt, filters.from) : undefined,
        filters.to ? lte(auditLogs.occurredAt, filters.to) : undefined,
      ],
      limit,
      after,
    });
  },
};
