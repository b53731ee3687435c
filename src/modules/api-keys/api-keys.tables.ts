import { index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const apiKeys = pgTable(
  'api_keys',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    memberId: text('member_id').notNull(),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    /** SHA-256 of the secret, hex. The secret itself is never stored. */
    secretHash: text('secret_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('api_keys_secret_hash_key').on(t.secretHash),
    index('api_keys_list_idx').on(t.organizationId, t.environment, t.createdAt, t.id),
  ],
);
