import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import { describeError } from '../db/pg-errors.ts';
import type { Store, Tx } from '../db/store.ts';
import { randomBase62 } from '../ids.ts';
import type { JobQueue } from './job-queue.ts';
import { type ClaimGroup, type JobRow, jobsRepo } from './jobs.repo.ts';

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
  onExhausted?: (tx: Tx, job: JobRow, error: string) => Promise<void>;
  /**
   * Jobs of this kind one worker runs at once: the kind's own slots, which no other kind's jobs
   * take, so a kind never waits behind another's slow jobs. Default: the runner's `concurrency`.
   */
  concurrency?: number;
  /**
   * Of those slots, the most one organization holds at once on this worker (jobs without an
   * organization, system tasks, count as one group), so some are left for the others. Default: all.
   */
  perOrganization?: number;
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
  /** Slots of a kind that does not name its own `concurrency` (default 1). */
  concurrency?: number;
  pollMs?: number;
}

/** Where a running job holds its slot: its kind, and its group within the kind. */
interface Slot {
  kind: string;
  group: string;
  promise: Promise<void>;
}

/**
 * Whether group `a` gets a free slot of its kind before `b`: fewer jobs running; then the older last
 * turn (a group that never had one first); then the older oldest due job.
 */
function goesBefore(a: ClaimGroup, b: ClaimGroup): boolean {
  if (a.running !== b.running) return a.running < b.running;
  if (a.lastTurn !== b.lastTurn) {
    if (a.lastTurn === null || b.lastTurn === null) return a.lastTurn === null;
    return a.lastTurn < b.lastTurn;
  }
  return (a.oldestDue as Date) < (b.oldestDue as Date);
}

/** The group of a job within its kind: its organization, or '' for system jobs (as jobs.repo counts). */
const groupOf = (job: JobRow) => job.organizationId ?? '';

/** What claiming reads of a runner: its store and clock, its id, its kinds and its running slots. */
interface ClaimingRunner {
  store: Store;
  clock: Clock;
  workerId: string;
  kinds: Map<string, RegisteredKind>;
  running: Map<string, Slot>;
}

/**
 * Claims due jobs for this worker's free slots, one at a time, and hands each to `take` at once:
 * for each kind with a free slot, the oldest due job of the group (organization) that holds the
 * fewest running jobs of the kind, skipping groups at their `perOrganization` share of this
 * worker's slots; among groups running equally many, the one whose last turn is oldest (never
 * first), then the one whose oldest job is. Jobs whose worker died (lease lapsed) are queued
 * again first. Returns how many it claimed. (A function of its own, given the runner's state, so
 * that createJobRunner reads as the runner's life: register, run, claim, stop.)
 */
async function claimDue(runner: ClaimingRunner, take: (job: JobRow) => void): Promise<number> {
  const { store, clock, workerId, kinds, running } = runner;
  const held = new Map<string, number>();
  const heldInGroup = new Map<string, number>();
  const slotKey = (kind: string, group: string) => `${kind}\u0000${group}`;
  for (const slot of running.values()) {
    held.set(slot.kind, (held.get(slot.kind) ?? 0) + 1);
    const key = slotKey(slot.kind, slot.group);
    heldInGroup.set(key, (heldInGroup.get(key) ?? 0) + 1);
  }
  const free = [...kinds].filter(([kind, k]) => k.concurrency > (held.get(kind) ?? 0));
  if (free.length === 0) return 0;
  const now = clock.now();
  await store.tx((tx) => jobsRepo.requeueLapsed(tx, now));
  const groups = await jobsRepo.claimGroups(store.db, now);
  let count = 0;
  for (const [kind, k] of free) {
    const candidates = groups.filter((g) => g.kind === kind && g.oldestDue !== null);
    const mine = (g: ClaimGroup) => heldInGroup.get(slotKey(kind, g.group)) ?? 0;
    let slots = k.concurrency - (held.get(kind) ?? 0);
    while (slots > 0) {
      const open = candidates.filter((g) => mine(g) < k.perOrganization);
      if (open.length === 0) break;
      const next = open.reduce((best, g) => (goesBefore(g, best) ? g : best));
      const leaseUntil = new Date(now.getTime() + k.leaseMs);
      const claimed = await store.tx(async (tx) => {
        const [job] = await jobsRepo.claim(tx, workerId, now, leaseUntil, 1, [kind], next.group);
        return job && { job, turn: await jobsRepo.takeTurn(tx, kind, next.group, now) };
      });
      if (!claimed) {
        // Nothing left in that group (or another worker took it): the others may still have some.
        candidates.splice(candidates.indexOf(next), 1);
        continue;
      }
      take(claimed.job);
      count++;
      slots--;
      next.running++;
      next.lastTurn = claimed.turn;
      heldInGroup.set(slotKey(kind, next.group), mine(next) + 1);
    }
  }
  return count;
}

/** What running a job reads of its runner (runJob, fail, scheduleRecurring). */
interface JobRunning extends ClaimingRunner {
  queue: JobQueue;
  log: FastifyBaseLogger;
  /** The runner's current stop signal (a new one each start). */
  signal: () => AbortSignal;
}

async function scheduleRecurring(runner: JobRunning, tx: Tx, kind: string, runAt: Date) {
  await runner.queue.enqueue(tx, {
    kind,
    payload: {},
    runAt,
    dedupeKey: `recurring:${kind}`,
    maxAttempts: 3,
  });
}

/** Runs one claimed job's handler, then records how it ended: done, retried later, or failed. */
async function runJob(runner: JobRunning, job: JobRow): Promise<void> {
  const { store, clock, log, workerId, kinds } = runner;
  const kind = kinds.get(job.kind)!;
  const leaseEnd = () => new Date(clock.now().getTime() + kind.leaseMs);
  if (job.attempts > job.maxAttempts) {
    // A lease lapsed on its last attempt (the worker died): no attempts left.
    await fail(runner, job, kind, job.lastError ?? 'worker lost the job on its last attempt');
    return;
  }
  const context: JobContext = {
    job,
    signal: runner.signal(),
    heartbeat: async () => {
      if (!(await store.tx((tx) => jobsRepo.extendLease(tx, job.id, workerId, leaseEnd())))) {
        throw new Error(`lease of job ${job.id} was lost`);
      }
    },
  };
  try {
    await kind.handler(job.payload, context);
    await store.tx(async (tx) => {
      await jobsRepo.finish(tx, job.id, workerId, { status: 'succeeded', completedAt: clock.now() });
      if (kind.everyMs !== undefined)
        await scheduleRecurring(runner, tx, job.kind, new Date(clock.now().getTime() + kind.everyMs));
    });
    // At debug level only (LOG_LEVEL=debug): a job's end is otherwise silent, and this line is
    // what shows that a round ran (tests wait for it before checking that nothing else happened).
    log.debug({ jobId: job.id, kind: job.kind }, 'job succeeded');
  } catch (error) {
    // Stored as lastError and shown in logs: never the data a database error carried.
    const message = error instanceof RetryJobAt ? error.message : describeError(error);
    if (error instanceof RetryJobAt) {
      await store.tx((tx) =>
        jobsRepo.finish(tx, job.id, workerId, { status: 'queued', runAt: error.runAt, lastError: message }),
      );
    } else if (job.attempts >= job.maxAttempts) {
      await fail(runner, job, kind, message);
    } else {
      log.warn(
        { jobId: job.id, kind: job.kind, attempt: job.attempts, err: message },
        'job failed; will retry',
      );
      const runAt = new Date(clock.now().getTime() + kind.backoffMs(job.attempts));
      await store.tx((tx) =>
        jobsRepo.finish(tx, job.id, workerId, { status: 'queued', runAt, lastError: message }),
      );
    }
  }
}

async function fail(runner: JobRunning, job: JobRow, kind: RegisteredKind, message: string) {
  const { store, clock, log, workerId } = runner;
  log.error({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed for good');
  await store.tx(async (tx) => {
    const finished = await jobsRepo.finish(tx, job.id, workerId, {
      status: 'failed',
      lastError: message,
      completedAt: clock.now(),
    });
    if (finished && kind.onExhausted) await kind.onExhausted(tx, job, message);
    if (finished && kind.everyMs !== undefined) {
      await scheduleRecurring(runner, tx, job.kind, new Date(clock.now().getTime() + kind.everyMs));
    }
  });
}

/**
 * Runs registered job kinds: claims due jobs, runs their handlers, retries with backoff, gives up
 * after maxAttempts. `start()` polls; `runDue()` runs everything due now (tests, CLI).
 *
 * Each kind has its own slots (`concurrency`), so ledger sealing never waits behind scans or
 * webhook deliveries. Within a kind, a free slot goes to the organization with the fewest jobs of
 * that kind running (on every worker), its oldest due job first; among organizations running
 * equally many, to the one that has gone longest without a slot of the kind (round robin: its last
 * turn is the oldest, and one that never had a turn goes first). One organization's thousand queued
 * jobs therefore delay another's next job by at most one job of that kind, not by the thousand, and
 * ten organizations' backlogs delay a newcomer's first job by one turn each at most, not by their
 * length.
 */
export function createJobRunner(options: JobRunnerOptions) {
  const { store, clock, queue, log } = options;
  const defaultConcurrency = options.concurrency ?? 1;
  const pollMs = options.pollMs ?? 1000;
  const workerId = `wkr_${randomBase62(12)}`;
  const kinds = new Map<string, RegisteredKind>();
  const running = new Map<string, Slot>();
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
  let stopped = new AbortController();
  const runner: JobRunning = {
    store,
    clock,
    queue,
    log,
    workerId,
    kinds,
    running,
    signal: () => stopped.signal,
  };

  function register(kind: string, handler: RegisteredKind['handler'], opts: JobKindOptions = {}) {
    const concurrency = opts.concurrency ?? defaultConcurrency;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error(`job kind ${kind}: concurrency must be a whole number ≥ 1`);
    kinds.set(kind, {
      handler,
      leaseMs: opts.leaseMs ?? DEFAULT_LEASE_MS,
      backoffMs: opts.backoffMs ?? defaultBackoff,
      onExhausted: opts.onExhausted,
      concurrency,
      perOrganization: Math.max(1, Math.min(opts.perOrganization ?? concurrency, concurrency)),
    });
  }

  /** A task that runs every `intervalMs` on exactly one worker at a time (a dedupe key holds one pending run). */
  function every(kind: string, intervalMs: number, handler: () => Promise<void>, opts: JobKindOptions = {}) {
    register(kind, handler, opts);
    kinds.get(kind)!.everyMs = intervalMs;
  }

  function launch(job: JobRow) {
    const promise = runJob(runner, job)
      .catch((error) => log.error({ error: describeError(error), jobId: job.id }, 'job runner error'))
      .finally(() => {
        running.delete(job.id);
        poke();
      });
    running.set(job.id, { kind: job.kind, group: groupOf(job), promise });
  }

  /** A slot came free: claim now rather than at the next poll (unless a claim is under way). */
  function poke() {
    if (stopping || !timer) return;
    clearTimeout(timer);
    timer = setTimeout(tick, 0);
  }

  async function tick() {
    timer = null;
    if (stopping) return;
    try {
      await claimDue(runner, launch);
    } catch (error) {
      log.warn({ error: describeError(error) }, 'could not claim jobs; retrying');
    }
    if (!stopping) timer = setTimeout(tick, pollMs);
  }

  async function ensureRecurring() {
    for (const [kind, registered] of kinds) {
      if (registered.everyMs !== undefined)
        await store.tx((tx) => scheduleRecurring(runner, tx, kind, clock.now()));
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
        const before = new Date(clock.now().getTime() - FINISHED_JOB_RETENTION_MS);
        await store.tx(async (tx) => {
          await jobsRepo.deleteFinished(tx, before, 1000);
          await jobsRepo.deleteTurnsBefore(tx, before);
        });
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
        const claimed: JobRow[] = [];
        if ((await claimDue(runner, (job) => claimed.push(job))) === 0) return count;
        count += claimed.length;
        await Promise.all(claimed.map((job) => runJob(runner, job)));
      }
    },

    /** Stops claiming; waits up to `graceMs` for running jobs, then hands the rest back to the queue. */
    async stop(graceMs = 10_000) {
      stopping = true;
      stopped.abort(new Error('the worker is stopping'));
      if (timer) clearTimeout(timer);
      timer = null;
      const all = Promise.allSettled([...running.values()].map((slot) => slot.promise));
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      await store.tx((tx) => jobsRepo.release(tx, [...running.keys()], workerId)).catch(() => {});
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
