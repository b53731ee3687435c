import { integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { bytea } from '../../platform/db/service-secrets.tables.ts';

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Key of the HMAC that turns visitors' subject ids into pseudonyms; never leaves the service. */
  pseudonymSecret: bytea('pseudonym_secret').notNull(),
  /** Per-organization override of RATE_LIMIT_PER_MINUTE (null: the default). */
  rateLimitPerMinute: integer('rate_limit_per_minute'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
});

export const members = pgTable(
  'members',
  {
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    id: text('id').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'admin', 'developer', 'analyst'] }).notNull(),
    passwordHash: text('password_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('members_organization_email_key').on(t.organizationId, t.email),
  ],
);
