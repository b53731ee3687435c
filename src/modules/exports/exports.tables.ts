import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];
export type ExportFormat = 'jsonl' | 'csv';

/**
 * One requested evidence export (docs/decisions/exports.md). The file itself lives in the export file storage
 * under `file_key`; this row says what it holds (filters), how far the job got (status, times) and
 * how to verify it (row_count, byte_size, sha256).
 */
export const evidenceExports = pgTable(
  'exports',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    status: text('status', { enum: EXPORT_STATUSES }).notNull(),
    format: text('format', { enum: ['jsonl', 'csv'] }).notNull(),
    channelId: text('channel_id'),
    fromAt: at('from_at'),
    toAt: at('to_at'),
    includeProofs: boolean('include_proofs').notNull(),
    /** The API key that asked for it (the audit log has the rest). */
    requestedBy: text('requested_by'),
    rowCount: integer('row_count'),
    byteSize: bigint('byte_size', { mode: 'number' }),
    /** SHA-256 of the file's bytes, hex. */
    sha256: text('sha256'),
    /** Where the storage keeps the file; null until it succeeded and again once the file is deleted. */
    fileKey: text('file_key'),
    createdAt: at('created_at').notNull(),
    startedAt: at('started_at'),
    completedAt: at('completed_at'),
    expiresAt: at('expires_at'),
    failureReason: text('failure_reason'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('exports_list_idx').on(t.organizationId, t.environment, t.createdAt, t.id),
    // The per-organization cap counts only unfinished exports.
    index('exports_active_idx').on(t.organizationId).where(sql`status in ('queued', 'running')`),
    // The expiry task walks succeeded exports by expiry time.
    index('exports_expiry_idx').on(t.expiresAt).where(sql`status = 'succeeded'`),
  ],
);

export type ExportRow = typeof evidenceExports.$inferSelect;
