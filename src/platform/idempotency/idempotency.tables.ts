import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per completed idempotent request, kept 24 hours. The row is written in the same
 * transaction as the resource it describes, so there is never a row without its resource or the
 * reverse; a request still running has no row (an advisory lock marks it instead).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organizationId: text('organization_id').notNull(),
    /** The owner's: the API key's or session's environment, or the site's channel's. */
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    /** Whose key space: the API key id (`key_…`), or `site:<siteKey>` for public calls. */
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** SHA-256 (hex) of method, path and canonical body: a reuse with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    responseStatus: integer('response_status').notNull(),
    /** The few headers a replay must repeat (Content-Type, Location, Retry-After…). */
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>().notNull(),
    /** The body exactly as sent; null for an empty body (204). */
    responseBody: text('response_body'),
    /** True when the body is sealed with a key derived from the caller's API key secret. */
    responseBodyEncrypted: boolean('response_body_encrypted').notNull(),
    /** X-Request-Id of the request that produced the response (sent as Original-Request-Id). */
    requestId: text('request_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.scope, t.key] }),
    index('idempotency_keys_expires_at_idx').on(t.expiresAt),
  ],
);

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;
