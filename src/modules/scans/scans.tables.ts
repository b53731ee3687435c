import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const SCAN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const SCAN_PHASES = ['before-consent', 'after-reject', 'after-accept'] as const;
export type ScanPhase = (typeof SCAN_PHASES)[number];
export type FindingKind = 'cookie' | 'storage' | 'request';

/** One thing a scan saw a page set or load, in one phase. */
export interface Finding {
  kind: FindingKind;
  /** Cookie name, storage key, or the request's host. */
  name: string;
  /** The cookie's domain, the storage's origin host, or the request's host. */
  domain: string;
  thirdParty: boolean;
  phase: ScanPhase;
  /** The scanned page it was seen on. */
  url: string;
  /** localStorage or sessionStorage for storage, the resource type (script, image, …) for requests. */
  detail: string | null;
  technologyId: string | null;
  purposeKey: string | null;
  classification: { category: string; vendor: string } | null;
  violation: boolean;
}

export interface ScanSummary {
  cookies: number;
  storage: number;
  requests: number;
  undeclared: number;
  violations: number;
}

/** A requested tracker scan of a channel's pages; findings are written once, when it ends. */
export const scans = pgTable(
  'scans',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    status: text('status', { enum: SCAN_STATUSES }).notNull(),
    urls: jsonb('urls').$type<string[]>().notNull(),
    /** The channel's configVersion the findings were judged against (set again when the scan starts). */
    configVersion: integer('config_version').notNull(),
    /** The API key or console member that asked for it. */
    requestedBy: text('requested_by'),
    createdAt: at('created_at').notNull(),
    startedAt: at('started_at'),
    completedAt: at('completed_at'),
    failureReason: text('failure_reason'),
    /** The regime the banner applied to the scanner's browser, which decides what is a violation. */
    regime: text('regime'),
    summary: jsonb('summary').$type<ScanSummary>(),
    findings: jsonb('findings').$type<Finding[]>(),
    /** What the scan could not see (scan-warnings.ts); empty until it succeeded. */
    warnings: jsonb('warnings').$type<string[]>().notNull().default([]),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('scans_list_idx').on(t.organizationId, t.channelId, t.createdAt, t.id),
  ],
);

export type ScanRow = typeof scans.$inferSelect;
