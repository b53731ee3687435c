import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import { describeError } from '../db/pg-errors.ts';
import type { Db, Store } from '../db/store.ts';
import { randomBase62 } from '../ids.ts';
import type { JobQueue } from './job-queue.ts';
import { type JobRow, jobsRepo } from './jobs.repo.ts';

export interface JobContext {
  job: JobRow;
  /** Extends the lease; long jobs (exports) call it as they make progress. Throws if the lease was lost. */
  heartbeat(): Promise<void>;
  /** Aborted when the worker stops: a long job (a browser scan) ends at once and is retried later. */
  signal: AbortSignal;
}

export interface JobKindOptions {
  /** How long a claim lasts without a heartbeat before another worker may take the job. */
  leaseMs?: number;
  /** Delay before retry number `attempt` (1-based) after a failure. */
  backoffMs?: (attempt: number) => number;
  /** Called once when the job fails for the last time (to mark the resource it served as failed). */
  /** Runs in the transaction that marks the job failed for good (`tx`), so both commit together. */
  onExhausted?: (tx: Db, job: JobRow, error: string) => Promise<void>;
}

interface RegisteredKind extends Required<Omit<JobKindOptions, 'onExhausted'>> {
  handler: (payload: any, context: JobContext) => Promise<void>;
  onExhausted?: JobKindOptions['onExhausted'];
  /** For recurring kinds: the interval to the next run. */
  everyMs?: number;
}

/** Thrown by a handler to be retried at a chosen time (a receiver's Retry-After, say). */
export class RetryJobAt extends Error {
  constructor(
    readonly runAt: Date,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_LEASE_MS = 60_000;
const defaultBackoff = (attempt: number) => Math.min(2 ** attempt * 1000, 10 * 60_000);
const FINISHED_JOB_RETENTION_MS = 7 * 24 * 3600_000;

export interface JobRunnerOptions {
  store: Store;
  clock: Clock;
  queue: JobQueue;
  log: FastifyBaseLogger;
  /** Jobs run at once by this worker. */
  concurrency?: number;
  pollMs?: number;
}

/**
 * Runs registered job kinds: claims due jobs, runs their handlers, retries with backoff, gives up
 * after maxAttempts. `start()` polls; `runDue()` runs everything due now (tests, CLI).
 */
export function createJobRunner(options: JobRunnerOptions) {
  const { store, clock, queue, log } = options;
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 1000;
  const workerId = `wkr_${randomBase62(12)}`;
  const kinds = new Map<string, RegisteredKind>();
  const running = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
  let stopped = new AbortController();

  function register(kind: string, handler: RegisteredKind['handler'], opts: JobKindOptions = {}) {
    kinds.set(kind, {
      handler,
      leaseMs: opts.leaseMs ?? DEFAULT_LEASE_MS,
      backoffMs: opts.backoffMs ?? defaultBackoff,
      onExhausted: opts.onExhausted,
    });
  }

  /** A task that runs every `intervalMs` on exactly one worker at a time (a dedupe key holds one pending run). */
  function every(kind: string, intervalMs: number, handler: () => Promise<void>, opts: JobKindOptions = {}) {
    register(kind, handler, opts);
    kinds.get(kind)!.everyMs = intervalMs;
  }

  async function scheduleRecurring(db: Db, kind: string, runAt: Date) {
    await queue.enqueue(db, {
      kind,
      payload: {},
      runAt,
      dedupeKey: `recurring:${kind}`,
      maxAttempts: 3,
    });
  }

  async function runOne(job: JobRow): Promise<void> {
    const kind = kinds.get(job.kind)!;
    const leaseEnd = () => new Date(clock.now().getTime() + kind.leaseMs);
    if (job.attempts > job.maxAttempts) {
      // A lease lapsed on its last attempt (the worker died): no attempts left.
      await fail(job, kind, job.lastError ?? 'worker lost the job on its last attempt');
      return;
    }
    const context: JobContext = {
      job,
      signal: stopped.signal,
      heartbeat: async () => {
        if (!(await jobsRepo.extendLease(store.db, job.id, workerId, leaseEnd()))) {
          throw new Error(`lease of job ${job.id} was lost`);
        }
      },
    };
    try {
      await kind.handler(job.payload, context);
      await store.tx(async (tx) => {
        await jobsRepo.finish(tx, job.id, workerId, { status: 'succeeded', completedAt: clock.now() });
        if (kind.everyMs !== undefined)
          await scheduleRecurring(tx, job.kind, new Date(clock.now().getTime() + kind.everyMs));
      });
    } catch (error) {
      // Stored as lastError and shown in logs: never the data a database error carried.
      const message = error instanceof RetryJobAt ? error.message : describeError(error);
      if (error instanceof RetryJobAt) {
        await jobsRepo.finish(store.db, job.id, workerId, {
          status: 'queued',
          runAt: error.runAt,
          lastError: message,
        });
      } else if (job.attempts >= job.maxAttempts) {
        await fail(job, kind, message);
      } else {
        log.warn(
          { jobId: job.id, kind: job.kind, attempt: job.attempts, err: message },
          'job failed; will retry',
        );
        const runAt = new Date(clock.now().getTime() + kind.backoffMs(job.attempts));
        await jobsRepo.finish(store.db, job.id, workerId, { status: 'queued', runAt, lastError: message });
      }
    }
  }

  async function fail(job: JobRow, kind: RegisteredKind, message: string) {
    log.error({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed for good');
    await store.tx(async (tx) => {
      const finished = await jobsRepo.finish(tx, job.id, workerId, {
        status: 'failed',
        lastError: message,
        completedAt: clock.now(),
      });
      if (finished && kind.onExhausted) await kind.onExhausted(tx, job, message);
      if (finished && kind.everyMs !== undefined) {
        await scheduleRecurring(tx, job.kind, new Date(clock.now().getTime() + kind.everyMs));
      }
    });
  }

  async function claim(limit: number): Promise<JobRow[]> {
    if (limit <= 0 || kinds.size === 0) return [];
    const now = clock.now();
    const maxLease = Math.max(...[...kinds.values()].map((k) => k.leaseMs));
    return jobsRepo.claim(store.db, workerId, now, new Date(now.getTime() + maxLease), limit, [
      ...kinds.keys(),
    ]);
  }

  function launch(job: JobRow) {
    const promise = runOne(job)
      .catch((error) => log.error({ error: describeError(error), jobId: job.id }, 'job runner error'))
      .finally(() => running.delete(job.id));
    running.set(job.id, promise);
  }

  async function tick() {
    timer = null;
    if (stopping) return;
    try {
      for (const job of await claim(concurrency - running.size)) launch(job);
    } catch (error) {
      log.warn({ error: describeError(error) }, 'could not claim jobs; retrying');
    }
    if (!stopping) timer = setTimeout(tick, pollMs);
  }

  async function ensureRecurring() {
    for (const [kind, registered] of kinds) {
      if (registered.everyMs !== undefined) await scheduleRecurring(store.db, kind, clock.now());
    }
  }

  return {
    workerId,
    register,
    every,

    async start() {
      stopping = false;
      if (stopped.signal.aborted) stopped = new AbortController();
      register('jobs.cleanup', async () => {
        await jobsRepo.deleteFinished(
          store.db,
          new Date(clock.now().getTime() - FINISHED_JOB_RETENTION_MS),
          1000,
        );
      });
      kinds.get('jobs.cleanup')!.everyMs = 3600_000;
      await ensureRecurring();
      timer = setTimeout(tick, 0);
    },

    /** Runs every job due now, one claim after another, until none is left. Returns how many ran. */
    async runDue(): Promise<number> {
      await ensureRecurring();
      let count = 0;
      for (;;) {
        const claimed = await claim(concurrency);
        if (claimed.length === 0) return count;
        count += claimed.length;
        await Promise.all(claimed.map((job) => runOne(job)));
      }
    },

    /** Stops claiming; waits up to `graceMs` for running jobs, then hands the rest back to the queue. */
    async stop(graceMs = 10_000) {
      stopping = true;
      stopped.abort(new Error('the worker is stopping'));
      if (timer) clearTimeout(timer);
      timer = null;
      const all = Promise.allSettled([...running.values()]);
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      await jobsRepo.release(store.db, [...running.keys()], workerId).catch(() => {});
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
