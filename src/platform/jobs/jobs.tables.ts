import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

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

/** Numbers the turns of job_turns: one increasing order across every worker, whatever their clocks. */
export const jobTurnsSeq = pgSequence('job_turns_seq');

/**
 * When each group (an organization, or '' for jobs without one) last got a slot of a kind, on any
 * worker: among groups running equally many jobs, a free slot goes to the one whose last turn is
 * oldest, a group without one first (round robin). One row per (kind, group), not per job.
 */
export const jobTurns = pgTable(
  'job_turns',
  {
    kind: text('kind').notNull(),
    /** The organization, or '' for jobs without one: the expression jobs_claim_idx orders by. */
    groupKey: text('group_key').notNull(),
    /** From job_turns_seq at the group's last claim: a later turn is a larger number. */
    turn: bigint('turn', { mode: 'number' }).notNull(),
    /** When that claim was made; turns not renewed for a week are deleted with finished jobs. */
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.groupKey] }), index('job_turns_claimed_idx').on(t.claimedAt)],
);
