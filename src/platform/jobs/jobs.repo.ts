import { and, asc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/store.ts';
import { jobs } from './jobs.tables.ts';

export type JobRow = typeof jobs.$inferSelect;

export const jobsRepo = {
  /** Inserts a job; with a dedupe key already queued or running, inserts nothing and returns false. */
  async insert(db: Db, row: JobRow): Promise<boolean> {
    const inserted = await db.insert(jobs).values(row).onConflictDoNothing().returning({ id: jobs.id });
    return inserted.length > 0;
  },

  /**
   * Claims up to `limit` due jobs: queued ones whose time has come, and running ones whose lease
   * lapsed (their worker died). SKIP LOCKED lets concurrent workers claim disjoint sets.
   */
  claim(
    db: Db,
    workerId: string,
    now: Date,
    leaseUntil: Date,
    limit: number,
    kinds: string[],
  ): Promise<JobRow[]> {
    const due = db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          inArray(jobs.kind, kinds),
          or(
            and(eq(jobs.status, 'queued'), sql`${jobs.runAt} <= ${now}`),
            and(eq(jobs.status, 'running'), lt(jobs.lockedUntil, now)),
          ),
        ),
      )
      .orderBy(asc(jobs.runAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    return db
      .update(jobs)
      .set({
        status: 'running',
        lockedBy: workerId,
        lockedUntil: leaseUntil,
        attempts: sql`${jobs.attempts} + 1`,
      })
      .where(inArray(jobs.id, due))
      .returning();
  },

  /** Extends the lease of a job this worker still holds; false when it lost it. */
  async extendLease(db: Db, id: string, workerId: string, leaseUntil: Date): Promise<boolean> {
    const rows = await db
      .update(jobs)
      .set({ lockedUntil: leaseUntil })
      .where(and(eq(jobs.id, id), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')))
      .returning({ id: jobs.id });
    return rows.length > 0;
  },

  /** Ends a job this worker holds; false when its lease lapsed and another worker took it. */
  async finish(
    db: Db,
    id: string,
    workerId: string,
    changes: Pick<JobRow, 'status'> & Partial<Pick<JobRow, 'runAt' | 'lastError' | 'completedAt'>>,
  ): Promise<boolean> {
    const rows = await db
      .update(jobs)
      .set({ ...changes, lockedBy: null, lockedUntil: null })
      .where(and(eq(jobs.id, id), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')))
      .returning({ id: jobs.id });
    return rows.length > 0;
  },

  /** On shutdown: hands unfinished jobs back without counting the interrupted attempt. */
  async release(db: Db, ids: string[], workerId: string): Promise<void> {
    if (ids.length === 0) return;
    await db
      .update(jobs)
      .set({
        status: 'queued',
        lockedBy: null,
        lockedUntil: null,
        attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
      })
      .where(and(inArray(jobs.id, ids), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')));
  },

  async find(db: Db, id: string): Promise<JobRow | undefined> {
    const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
    return row;
  },

  /** Deletes finished jobs completed before `before`, at most `limit` of them. */
  async deleteFinished(db: Db, before: Date, limit: number): Promise<number> {
    const old = db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(inArray(jobs.status, ['succeeded', 'failed']), lt(jobs.completedAt, before)))
      .limit(limit);
    const rows = await db.delete(jobs).where(inArray(jobs.id, old)).returning({ id: jobs.id });
    return rows.length;
  },
};
