import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Choices handed over between a channel's registrable domains (docs/guides/keep-the-choice.md).
 * A row per token: the token itself is never stored, only its SHA-256; nor is a visitor's raw id,
 * only the pseudonyms the evidence knows them by. A redeemed row is kept (until the handoffs purge)
 * as the link from the visitor on the target to the decision they brought, so a choice can travel
 * on from there.
 */
export const handoffs = pgTable(
  'handoffs',
  {
    organizationId: text('organization_id').notNull(),
    /** SHA-256 (hex) of the token: with the site's organization, the key a redeem finds the row by. */
    tokenHash: text('token_hash').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    /** The pseudonym of the visitor on the page that asked for the token. */
    subjectPseudonym: text('subject_pseudonym').notNull(),
    /** The page's origin (normalized): the evidence event's handoff.fromOrigin; null from an app. */
    fromOrigin: text('from_origin'),
    /**
     * From an app into a WebView page (docs/guides/apps.md): the app id (handoff.fromApp) and its
     * app channel, whose evidence holds the decision handed; channel_id is then the page's channel.
     */
    fromApp: text('from_app'),
    fromChannelId: text('from_channel_id'),
    /** The origin the token is bound to (normalized): only a redeem from it counts. */
    targetOrigin: text('target_origin').notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    redeemedAt: at('redeemed_at'),
    /** The pseudonym of the visitor on the target who redeemed it. */
    redeemedPseudonym: text('redeemed_pseudonym'),
    /** The event of the decision handed over (the visitor's own, on the origin they came from). */
    handedEventId: text('handed_event_id'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.tokenHash] }),
    // Where a visitor on a target got their choice from, newest first: a choice travels on from there.
    index('handoffs_redeemed_idx')
      .on(t.organizationId, t.channelId, t.redeemedPseudonym, t.redeemedAt)
      .where(sql`redeemed_pseudonym is not null`),
    // The purge of tokens never redeemed, once expired.
    index('handoffs_expiry_idx').on(t.expiresAt),
  ],
);

export type HandoffRow = typeof handoffs.$inferSelect;
