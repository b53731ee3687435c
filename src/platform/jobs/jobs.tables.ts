import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Durable jobs, claimed with FOR UPDATE SKIP LOCKED so any number of workers cooperate without a
 * broker. A claimed job holds a lease (`locked_until`); a worker that dies lets the lease lapse and
 * another worker takes the job again.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    /**
     * The tenant the job works for, when it has one. The worker shares a kind's slots between
     * organizations by it; jobs without one (system tasks: sealing, purges) are a group of their own.
     */
    organizationId: text('organization_id'),
    payload: jsonb('payload').notNull().$type<Record<string, unknown>>(),
    status: text('status', { enum: ['queued', 'running', 'succeeded', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    runAt: timestamp('run_at', { withTimezone: true, mode: 'date' }).notNull(),
    lockedBy: text('locked_by'),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    /** At most one queued or running job per dedupe key (recurring tasks, one export per id, …). */
    dedupeKey: text('dedupe_key'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt).where(sql`status = 'queued'`),
    // Claims: each kind and organization's oldest queued job is the first entry of its range, so the
    // worker finds every (kind, organization) with work in one entry each, however long a queue is.
    index('jobs_claim_idx')
      .on(t.kind, sql`(coalesce(${t.organizationId}, ''))`, t.runAt)
      .where(sql`status = 'queued'`),
    index('jobs_lease_idx').on(t.lockedUntil).where(sql`status = 'running'`),
    uniqueIndex('jobs_pending_dedupe_key').on(t.dedupeKey).where(sql`status in ('queued', 'running')`),
    index('jobs_completed_idx').on(t.completedAt).where(sql`status in ('succeeded', 'failed')`),
  ],
);
