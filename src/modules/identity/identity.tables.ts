import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The secrets a site's backend signs its visitors' identity tokens with (HS256;
 * docs/guides/signed-in-visitors.md). The secret is kept sealed (AES-256-GCM with the key that seals
 * webhook secrets), never in clear; a revoked secret keeps its row (revokedAt) for the audit trail.
 */
export const identitySecrets = pgTable(
  'identity_secrets',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: at('created_at').notNull(),
    revokedAt: at('revoked_at'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    // A channel's secrets, newest first: the list, the two-active check and the token verifier's load.
    index('identity_secrets_channel_idx').on(t.organizationId, t.channelId, t.createdAt, t.id),
  ],
);

export type IdentitySecretRow = typeof identitySecrets.$inferSelect;
