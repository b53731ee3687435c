import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { readQuery, rowsOf } from '../db/rows.ts';
import type { Db, Tx } from '../db/store.ts';
import { jobs, jobTurns } from './jobs.tables.ts';

export type JobRow = typeof jobs.$inferSelect;

/**
 * The group a job's slot is counted in: its organization, or '' for jobs without one (system
 * tasks). The expression of jobs_claim_idx, written the same way so that the index serves it.
 */
const groupOf = sql`(coalesce(${jobs.organizationId}, ''))`;

/** One kind's work for one group (an organization, or '' for system jobs), as a claim sees it. */
export interface ClaimGroup {
  kind: string;
  group: string;
  /** Jobs of the group and kind running now on any worker (their lease has not lapsed). */
  running: number;
  /** When its oldest due queued job was due; null when it has none. */
  oldestDue: Date | null;
  /** Its last turn (job_turns): when it last got a slot of the kind, in claim order; null if never. */
  lastTurn: number | null;
}

export const jobsRepo = {
  /** Inserts a job; with a dedupe key already queued or running, inserts nothing and returns false. */
  async insert(tx: Tx, row: JobRow): Promise<boolean> {
    const inserted = await tx.insert(jobs).values(row).onConflictDoNothing().returning({ id: jobs.id });
    return inserted.length > 0;
  },

  /**
   * Hands running jobs whose lease lapsed (their worker died, or lost the database) back to the
   * queue, their attempt counted: a claim then takes them like any other due job, oldest first.
   */
  async requeueLapsed(tx: Tx, now: Date): Promise<number> {
    const rows = await tx
      .update(jobs)
      .set({ status: 'queued', lockedBy: null, lockedUntil: null })
      .where(and(eq(jobs.status, 'running'), lt(jobs.lockedUntil, now)))
      .returning({ id: jobs.id });
    return rows.length;
  },

  /**
   * Every (kind, group) with due queued jobs or running ones: how many run now, and when the
   * oldest due one was due. The queued side walks jobs_claim_idx one entry per (kind, group) (a
   * loose index scan: each step is the first entry after the previous group), so a group with
   * thousands of queued jobs costs what a group with one does; the running side reads running
   * jobs only. Each group with due jobs comes with its last turn (one primary-key lookup).
   */
  /** Jobs by kind and status, with the seconds the oldest due queued job of each has waited (metrics). */
  async gauges(db: Db, now: Date) {
    const at = now.toISOString();
    return rowsOf<{ kind: string; status: string; count: number; oldest: number | null }>(
      await readQuery(
        db,
        sql`
        select kind, status, count(*)::int as count,
          extract(epoch from (${at}::timestamptz - min(run_at) filter (where status = 'queued' and run_at <= ${at}::timestamptz)))::float8 as oldest
        from ${jobs} where status in ('queued', 'running', 'failed') group by kind, status`,
      ),
    );
  },

  async claimGroups(db: Db, now: Date): Promise<ClaimGroup[]> {
    const result = await readQuery(
      db,
      sql`
      with recursive firsts as (
        (select kind, ${groupOf} as grp, run_at from ${jobs}
          where status = 'queued' order by kind, ${groupOf}, run_at limit 1)
        union all
        select next.kind, next.grp, next.run_at from firsts
        cross join lateral (
          select kind, ${groupOf} as grp, run_at from ${jobs}
          where status = 'queued' and (kind, ${groupOf}) > (firsts.kind, firsts.grp)
          order by kind, ${groupOf}, run_at limit 1
        ) next
      )
      select firsts.kind, firsts.grp, 0 as running, firsts.run_at as oldest, turns.turn
      from firsts left join ${jobTurns} turns on turns.kind = firsts.kind and turns.group_key = firsts.grp
      where firsts.run_at <= ${now}
      union all
      select kind, ${groupOf}, count(*)::int, null, null from ${jobs}
      where status = 'running' and locked_until >= ${now} group by kind, ${groupOf}`,
    );
    const groups = new Map<string, ClaimGroup>();
    for (const row of rowsOf<{
      kind: string;
      grp: string;
      running: number;
      oldest: Date | string | null;
      turn: number | string | null;
    }>(result)) {
      const key = `${row.kind}\u0000${row.grp}`;
      const entry = groups.get(key) ?? {
        kind: row.kind,
        group: row.grp,
        running: 0,
        oldestDue: null,
        lastTurn: null,
      };
      entry.running += Number(row.running);
      if (row.oldest !== null) entry.oldestDue = new Date(row.oldest);
      if (row.turn !== null) entry.lastTurn = Number(row.turn);
      groups.set(key, entry);
    }
    return [...groups.values()];
  },

  /**
   * Claims up to `limit` due queued jobs of `kinds`, oldest first; only those of one group (an
   * organization, or '' for jobs without one) when `group` is given. SKIP LOCKED lets concurrent
   * workers claim disjoint sets.
   */
  claim(
    tx: Tx,
    workerId: string,
    now: Date,
    leaseUntil: Date,
    limit: number,
    kinds: string[],
    group?: string,
  ): Promise<JobRow[]> {
    const due = tx
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          eq(jobs.status, 'queued'),
          inArray(jobs.kind, kinds),
          group === undefined ? undefined : sql`${groupOf} = ${group}`,
          sql`${jobs.runAt} <= ${now}`,
        ),
      )
      .orderBy(asc(jobs.runAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    return tx
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

  /**
   * Records that `group` got a slot of `kind` now, in the transaction of the claim: its turn becomes
   * the newest (job_turns_seq), so it goes behind every group waiting for one. Returns that turn.
   */
  async takeTurn(tx: Tx, kind: string, group: string, now: Date): Promise<number> {
    const [row] = await tx
      .insert(jobTurns)
      .values({ kind, groupKey: group, turn: sql`nextval('job_turns_seq')`, claimedAt: now })
      .onConflictDoUpdate({
        target: [jobTurns.kind, jobTurns.groupKey],
        set: { turn: sql`excluded.turn`, claimedAt: sql`excluded.claimed_at` },
      })
      .returning({ turn: jobTurns.turn });
    return Number(row.turn);
  },

  /**
   * Forgets turns not taken since `before`: such a group then counts as never served, which puts it
   * where its old turn would have (ahead of every group served since).
   */
  async deleteTurnsBefore(tx: Tx, before: Date): Promise<number> {
    const rows = await tx
      .delete(jobTurns)
      .where(lt(jobTurns.claimedAt, before))
      .returning({ kind: jobTurns.kind });
    return rows.length;
  },

  /** Extends the lease of a job this worker still holds; false when it lost it. */
  async extendLease(tx: Tx, id: string, workerId: string, leaseUntil: Date): Promise<boolean> {
    const rows = await tx
      .update(jobs)
      .set({ lockedUntil: leaseUntil })
      .where(and(eq(jobs.id, id), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')))
      .returning({ id: jobs.id });
    return rows.length > 0;
  },

  /** Ends a job this worker holds; false when its lease lapsed and another worker took it. */
  async finish(
    tx: Tx,
    id: string,
    workerId: string,
    changes: Pick<JobRow, 'status'> & Partial<Pick<JobRow, 'runAt' | 'lastError' | 'completedAt'>>,
  ): Promise<boolean> {
    const rows = await tx
      .update(jobs)
      .set({ ...changes, lockedBy: null, lockedUntil: null })
      .where(and(eq(jobs.id, id), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')))
      .returning({ id: jobs.id });
    return rows.length > 0;
  },

  /** On shutdown: hands unfinished jobs back without counting the interrupted attempt. */
  async release(tx: Tx, ids: string[], workerId: string): Promise<void> {
    if (ids.length === 0) return;
    await tx
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
  async deleteFinished(tx: Tx, before: Date, limit: number): Promise<number> {
    const old = tx
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(inArray(jobs.status, ['succeeded', 'failed']), lt(jobs.completedAt, before)))
      .limit(limit);
    const rows = await tx.delete(jobs).where(inArray(jobs.id, old)).returning({ id: jobs.id });
    return rows.length;
  },
};
