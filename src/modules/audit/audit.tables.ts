import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const auditLogs = pgTable(
  'audit_logs',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    action: text('action').notNull(),
    actorType: text('actor_type', { enum: ['api_key', 'member', 'system'] }).notNull(),
    actorId: text('actor_id'),
    targetType: text('target_type'),
    targetId: text('target_id'),
    requestId: text('request_id'),
    ipPrefix: text('ip_prefix'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** How many events the entry stands for: 1, except auth.denied (one entry per actor, route, minute). */
    count: integer('count').notNull().default(1),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('audit_logs_list_idx').on(t.organizationId, t.environment, t.occurredAt, t.id),
  ],
);
