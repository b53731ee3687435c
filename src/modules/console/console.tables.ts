import { index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Signed-in members of the console. The cookie holds a random token; only its
 * SHA-256 is stored, so a copy of the database cannot be used to sign in. A session ends at
 * `expires_at` (absolute), after SESSION_IDLE_MS without use (`last_seen_at`), or at sign-out.
 */
export const memberSessions = pgTable(
  'member_sessions',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    memberId: text('member_id').notNull(),
    /** SHA-256 of the cookie's token, hex. */
    tokenHash: text('token_hash').notNull(),
    /** The environment the console acts in; the member switches it. */
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('member_sessions_token_hash_key').on(t.tokenHash),
    index('member_sessions_member_idx').on(t.organizationId, t.memberId),
    index('member_sessions_expires_at_idx').on(t.expiresAt),
  ],
);

export type MemberSessionRow = typeof memberSessions.$inferSelect;
