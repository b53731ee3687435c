import { integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Every version of IAB's Global Vendor List (GVL v3, `vendor-list.json`) the worker has fetched.
 * A version never changes once published, so a row is written once and kept: TC strings name the
 * version they were built with, and the service must still know it to check them.
 */
export const tcfVendorLists = pgTable('tcf_vendor_lists', {
  vendorListVersion: integer('vendor_list_version').primaryKey(),
  tcfPolicyVersion: integer('tcf_policy_version').notNull(),
  /** The list's own `lastUpdated`. */
  lastUpdated: at('last_updated').notNull(),
  /** The parsed `vendor-list.json`, as IAB published it. */
  body: jsonb('body').$type<Record<string, unknown>>().notNull(),
  fetchedAt: at('fetched_at').notNull(),
});

/**
 * The translations (`purposes-<lang>.json`) of a vendor list version, fetched for each language a
 * TCF channel uses: the names and descriptions of purposes, features, stacks and data categories.
 */
export const tcfVendorListLanguages = pgTable(
  'tcf_vendor_list_languages',
  {
    vendorListVersion: integer('vendor_list_version').notNull(),
    language: text('language').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    fetchedAt: at('fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vendorListVersion, t.language] })],
);

/**
 * The mirror's one row (id 1): when to fetch next (the response's `Cache-Control: max-age`), and
 * the last failure, so operators can see that the service is serving an older list.
 */
export const tcfMirrorState = pgTable('tcf_mirror_state', {
  id: integer('id').primaryKey(),
  nextFetchAt: at('next_fetch_at'),
  lastAttemptAt: at('last_attempt_at'),
  lastSuccessAt: at('last_success_at'),
  lastError: text('last_error'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
});

/**
 * What each vendor publishes at its `deviceStorageDisclosureUrl` (IAB's "Vendor Device Storage &
 * Operational Disclosures" JSON: the cookies and other storage it uses, with durations), fetched
 * by the worker for the vendors TCF channels use, once per vendor list version: the slice of that
 * version carries it, so a visitor's browser never asks a vendor's host. `body` is the checked
 * file (storage-disclosure-shape.ts); null with `error` when the fetch or the check failed (the
 * worker tries again when the list is next due).
 */
export const tcfStorageDisclosures = pgTable(
  'tcf_storage_disclosures',
  {
    vendorListVersion: integer('vendor_list_version').notNull(),
    vendorId: integer('vendor_id').notNull(),
    url: text('url').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>(),
    error: text('error'),
    fetchedAt: at('fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vendorListVersion, t.vendorId] })],
);

/**
 * Google's Ad Tech Providers list (Additional Consent), mirrored by the worker from GOOGLE_ATP_URL
 * when a channel uses `googleAdditionalConsent` or a save asked for it: one row (id 1) holding the
 * last good list (`providers`, checked by atp-list-shape.ts; null before the first success) and the
 * mirror's state, as tcf_mirror_state keeps the vendor list's. A failed fetch keeps the list.
 */
export const tcfAtpList = pgTable('tcf_atp_list', {
  id: integer('id').primaryKey(),
  providers:
    jsonb('providers').$type<
      Array<{ id: number; name: string; policyUrl: string | null; domains: string[] }>
    >(),
  fetchedAt: at('fetched_at'),
  nextFetchAt: at('next_fetch_at'),
  lastAttemptAt: at('last_attempt_at'),
  lastSuccessAt: at('last_success_at'),
  lastError: text('last_error'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
});
