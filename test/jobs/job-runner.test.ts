import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/platform/clock.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { createJobQueue } from '../../src/platform/jobs/job-queue.ts';
import { createJobRunner, RetryJobAt } from '../../src/platform/jobs/job-runner.ts';
import { jobsRepo } from '../../src/platform/jobs/jobs.repo.ts';
import { openTestStore } from '../helpers/app.ts';

let store: Store;
const silent = { warn() {}, error() {}, info() {}, debug() {} } as never;

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

/** A runner on its own clock, with kinds unique to the test so tests never run each other's jobs. */
function setup(concurrency = 4) {
  const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
  const queue = createJobQueue({ clock });
  const runner = createJobRunner({ store, clock, queue, log: silent, concurrency });
  const kind = `test.${Math.random().toString(36).slice(2)}`;
  return { clock, queue, runner, kind };
}

describe('job runner', () => {
  it('runs a due job once and marks it succeeded', async () => {
    const { queue, runner, kind } = setup();
    const seen: unknown[] = [];
    runner.register(kind, async (payload) => {
      seen.push(payload);
    });
    const { id } = await store.tx((tx) => queue.enqueue(tx, { kind, payload: { n: 1 } }));
    expect(await runner.runDue()).toBe(1);
    expect(await runner.runDue()).toBe(0);
    expect(seen).toEqual([{ n: 1 }]);
    expect((await jobsRepo.find(store.db, id))?.status).toBe('succeeded');
  });

  it('does not run a job before its time', async () => {
    const { clock, queue, runner, kind } = setup();
    let runs = 0;
    runner.register(kind, async () => {
      runs++;
    });
    await store.tx((tx) =>
      queue.enqueue(tx, { kind, payload: {}, runAt: new Date(clock.now().getTime() + 60_000) }),
    );
    await runner.runDue();
    expect(runs).toBe(0);
    clock.advance(60_000);
    await runner.runDue();
    expect(runs).toBe(1);
  });

  it('retries with backoff, then fails for good and calls onExhausted once', async () => {
    const { clock, queue, runner, kind } = setup();
    let runs = 0;
    const exhausted: string[] = [];
    runner.register(
      kind,
      async () => {
        runs++;
        throw new Error(`boom ${runs}`);
      },
      {
        backoffMs: () => 1000,
        onExhausted: async (_tx, job, error) => void exhausted.push(`${job.id}:${error}`),
      },
    );
    const { id } = await store.tx((tx) => queue.enqueue(tx, { kind, payload: {}, maxAttempts: 3 }));
    await runner.runDue();
    expect(runs).toBe(1);
    expect((await jobsRepo.find(store.db, id))?.status).toBe('queued');
    clock.advance(1000);
    await runner.runDue();
    clock.advance(1000);
    await runner.runDue();
    expect(runs).toBe(3);
    const job = await jobsRepo.find(store.db, id);
    expect(job?.status).toBe('failed');
    expect(job?.lastError).toBe('boom 3');
    expect(exhausted).toEqual([`${id}:boom 3`]);
    clock.advance(60_000);
    await runner.runDue();
    expect(runs).toBe(3);
  });

  it('honours a handler’s chosen retry time', async () => {
    const { clock, queue, runner, kind } = setup();
    let runs = 0;
    runner.register(kind, async () => {
      runs++;
      if (runs === 1) throw new RetryJobAt(new Date(clock.now().getTime() + 30_000), 'receiver said later');
    });
    await store.tx((tx) => queue.enqueue(tx, { kind, payload: {} }));
    await runner.runDue();
    clock.advance(29_000);
    await runner.runDue();
    expect(runs).toBe(1);
    clock.advance(1000);
    await runner.runDue();
    expect(runs).toBe(2);
  });

  it('takes over a job whose worker died (its lease lapsed)', async () => {
    const { clock, queue, runner, kind } = setup();
    runner.register(kind, async () => {}, { leaseMs: 5000 });
    const { id } = await store.tx((tx) => queue.enqueue(tx, { kind, payload: {} }));
    // A worker that claims the job and then dies.
    const [claimed] = await store.tx((tx) =>
      jobsRepo.claim(tx, 'wkr_dead', clock.now(), new Date(clock.now().getTime() + 5000), 1, [kind]),
    );
    expect(claimed.id).toBe(id);
    expect(await runner.runDue()).toBe(0);
    clock.advance(5001);
    expect(await runner.runDue()).toBe(1);
    const job = await jobsRepo.find(store.db, id);
    expect(job?.status).toBe('succeeded');
    expect(job?.attempts).toBe(2);
    // The dead worker coming back cannot finish a job it no longer holds.
    expect(await store.tx((tx) => jobsRepo.finish(tx, id, 'wkr_dead', { status: 'failed' }))).toBe(false);
  });

  it('a lapsed lease on the last attempt fails the job instead of running it again', async () => {
    const { clock, queue, runner, kind } = setup();
    let runs = 0;
    const exhausted: string[] = [];
    runner.register(kind, async () => void runs++, {
      leaseMs: 1000,
      onExhausted: async (_tx, job) => void exhausted.push(job.id),
    });
    const { id } = await store.tx((tx) => queue.enqueue(tx, { kind, payload: {}, maxAttempts: 1 }));
    await store.tx((tx) =>
      jobsRepo.claim(tx, 'wkr_dead', clock.now(), new Date(clock.now().getTime() + 1000), 1, [kind]),
    );
    clock.advance(1001);
    await runner.runDue();
    expect(runs).toBe(0);
    expect((await jobsRepo.find(store.db, id))?.status).toBe('failed');
    expect(exhausted).toEqual([id]);
  });

  it('a dedupe key admits one pending job', async () => {
    const { queue, runner, kind } = setup();
    runner.register(kind, async () => {});
    expect(
      (await store.tx((tx) => queue.enqueue(tx, { kind, payload: {}, dedupeKey: `${kind}:x` }))).enqueued,
    ).toBe(true);
    expect(
      (await store.tx((tx) => queue.enqueue(tx, { kind, payload: {}, dedupeKey: `${kind}:x` }))).enqueued,
    ).toBe(false);
    await runner.runDue();
    expect(
      (await store.tx((tx) => queue.enqueue(tx, { kind, payload: {}, dedupeKey: `${kind}:x` }))).enqueued,
    ).toBe(true);
  });

  it('a job enqueued in a rolled-back transaction never exists', async () => {
    const { queue, runner, kind } = setup();
    let runs = 0;
    runner.register(kind, async () => void runs++);
    await expect(
      store.tx(async (tx) => {
        await queue.enqueue(tx, { kind, payload: {} });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await runner.runDue();
    expect(runs).toBe(0);
  });

  it('recurring tasks run once per interval', async () => {
    const { clock, runner, kind } = setup();
    let runs = 0;
    runner.every(kind, 60_000, async () => void runs++);
    await runner.runDue();
    await runner.runDue();
    expect(runs).toBe(1);
    clock.advance(60_000);
    await runner.runDue();
    expect(runs).toBe(2);
  });

  it('several workers run each job exactly once', async () => {
    const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
    const queue = createJobQueue({ clock });
    const kind = `test.${Math.random().toString(36).slice(2)}`;
    const counts = new Map<number, number>();
    const runners = [1, 2, 3].map(() => {
      const runner = createJobRunner({ store, clock, queue, log: silent, concurrency: 3 });
      runner.register(kind, async (payload: { n: number }) => {
        counts.set(payload.n, (counts.get(payload.n) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 2));
      });
      return runner;
    });
    for (let n = 0; n < 40; n++) await store.tx((tx) => queue.enqueue(tx, { kind, payload: { n } }));
    const ran = await Promise.all(runners.map((r) => r.runDue()));
    expect(ran.reduce((a, b) => a + b, 0)).toBe(40);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(counts.size).toBe(40);
  });

  it('stop() hands an unfinished job back to the queue', async () => {
    const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
    const queue = createJobQueue({ clock });
    const kind = `test.${Math.random().toString(36).slice(2)}`;
    // The runner's end of this job, once released: the test waits for it, so that no query of the
    // runner is still on its way when the store closes. Its own job's line, not the hourly cleanup
    // job's (which start() runs too, and which ends first: waiting for any line left this job's
    // last transaction connecting past the file, on PostgreSQL).
    let ended!: () => void;
    const jobEnded = new Promise<void>((resolve) => (ended = resolve));
    const mine = { id: '' };
    const log = {
      warn() {},
      error() {},
      info() {},
      debug: (fields: { jobId?: string }, msg: string) =>
        msg === 'job succeeded' && fields.jobId === mine.id && ended(),
    };
    const runner = createJobRunner({ store, clock, queue, log: log as never, concurrency: 4 });
    let release!: () => void;
    runner.register(kind, () => new Promise<void>((resolve) => (release = resolve)));
    const { id } = await store.tx((tx) => queue.enqueue(tx, { kind, payload: {} }));
    mine.id = id;
    await runner.start();
    for (let i = 0; i < 100 && (await jobsRepo.find(store.db, id))?.status !== 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await runner.stop(50);
    const job = await jobsRepo.find(store.db, id);
    expect(job?.status).toBe('queued');
    expect(job?.attempts).toBe(0);
    release();
    await jobEnded;
  });
});
