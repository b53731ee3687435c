import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/platform/clock.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { createJobQueue } from '../../src/platform/jobs/job-queue.ts';
import { createJobRunner } from '../../src/platform/jobs/job-runner.ts';
import { JOB_SLOTS } from '../../src/worker.ts';
import { openTestStore } from '../helpers/app.ts';

/**
 * Round robin between organizations: among those running equally many jobs of a kind, a free slot
 * goes to the one that has gone longest without one (one that never had one first), not to the
 * oldest due job. So an organization with a backlog cannot make a newcomer wait for the backlog.
 * The worker polls as in production (`start()`); jobs end only when the test releases them, so
 * the order of starts is the runner's choice alone. Order is asserted, never time.
 */

let store: Store;
const silent = { warn() {}, error() {}, info() {}, debug() {} } as never;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

/** A job kind whose jobs run until released one by one; `starts` lists the labels in start order. */
function heldKind() {
  const starts: string[] = [];
  const waiting: Array<() => void> = [];
  return {
    starts,
    handler: (payload: { label: string }) =>
      new Promise<void>((resolve) => {
        starts.push(payload.label);
        // A job the test forgets to release ends after 20 s, so a failing test still ends.
        const timer = setTimeout(resolve, 20_000);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
    /** Ends the job that started first of those still running. */
    releaseOne() {
      waiting.shift()?.();
    },
    releaseAll() {
      for (const release of waiting.splice(0)) release();
    },
    /** Waits until `count` jobs have started (or 10 s). */
    async started(count: number) {
      for (let i = 0; i < 1000 && starts.length < count; i++) await sleep(10);
      return starts.length;
    },
  };
}

describe('a free slot goes to the organization that has waited longest for one', () => {
  it('a newcomer’s first job runs next, ahead of capped organizations’ backlogs', async () => {
    // The real clock's date, moved by hand: on a shared PostgreSQL the cleanup every runner
    // registers then keeps other files' jobs.
    const clock = createManualClock(new Date());
    const queue = createJobQueue({ clock });
    const runner = createJobRunner({ store, clock, queue, log: silent, pollMs: 50 });
    const kind = `test.turns.${Math.random().toString(36).slice(2)}`;
    const jobs = heldKind();
    // As scans are: two slots, one per organization.
    runner.register(kind, jobs.handler, { ...JOB_SLOTS.scans });
    const run = Math.random().toString(36).slice(2, 8);
    const orgs = Array.from({ length: 10 }, (_, n) => `org_turns_${run}_${n + 1}`);
    for (let job = 1; job <= 3; job++) {
      for (const org of orgs) {
        await store.tx((tx) =>
          queue.enqueue(tx, { kind, organizationId: org, payload: { label: `${org}#${job}` } }),
        );
        clock.advance(1_000);
      }
    }
    await runner.start();
    try {
      // The first round: each organization's first job, oldest first (two at a time).
      expect(await jobs.started(2)).toBe(2);
      for (let n = 3; n <= orgs.length; n++) {
        clock.advance(1_000);
        jobs.releaseOne();
        expect(await jobs.started(n)).toBe(n);
      }
      expect(jobs.starts).toEqual(orgs.map((org) => `${org}#1`));

      // A newcomer queues one job, newer than every job of the backlog.
      const newcomer = `org_turns_${run}_new`;
      await store.tx((tx) =>
        queue.enqueue(tx, { kind, organizationId: newcomer, payload: { label: `${newcomer}#1` } }),
      );
      clock.advance(1_000);
      jobs.releaseOne();
      expect(await jobs.started(orgs.length + 1)).toBe(orgs.length + 1);
      expect(jobs.starts[orgs.length], 'the next free slot goes to the newcomer').toBe(`${newcomer}#1`);

      // Then round robin again: each capped organization's second job, in the order they were served.
      for (let n = orgs.length + 2; n <= 2 * orgs.length + 1; n++) {
        clock.advance(1_000);
        jobs.releaseOne();
        expect(await jobs.started(n)).toBe(n);
      }
      expect(jobs.starts.slice(orgs.length + 1)).toEqual(orgs.map((org) => `${org}#2`));
    } finally {
      jobs.releaseAll();
      await runner.stop(5_000);
    }
  }, 60_000);

  it('an organization that had no slot for longest goes before one served since', async () => {
    const clock = createManualClock(new Date());
    const queue = createJobQueue({ clock });
    const runner = createJobRunner({ store, clock, queue, log: silent, pollMs: 50 });
    const kind = `test.turns.${Math.random().toString(36).slice(2)}`;
    const jobs = heldKind();
    runner.register(kind, jobs.handler, { concurrency: 1 });
    const run = Math.random().toString(36).slice(2, 8);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => `org_turns_${run}_${name}`);
    // a and b each hold a backlog; c's one job is queued last.
    for (const [org, count] of [
      [a, 3],
      [b, 3],
      [c, 1],
    ] as const) {
      for (let job = 1; job <= count; job++) {
        await store.tx((tx) =>
          queue.enqueue(tx, { kind, organizationId: org, payload: { label: `${org}#${job}` } }),
        );
        clock.advance(1_000);
      }
    }
    await runner.start();
    try {
      for (let n = 1; n <= 7; n++) {
        expect(await jobs.started(n)).toBe(n);
        clock.advance(1_000);
        jobs.releaseOne();
      }
      // One slot: a, b, c (never served, though its job is the newest), then a and b in turn.
      expect(jobs.starts).toEqual([`${a}#1`, `${b}#1`, `${c}#1`, `${a}#2`, `${b}#2`, `${a}#3`, `${b}#3`]);
    } finally {
      jobs.releaseAll();
      await runner.stop(5_000);
    }
  }, 60_000);
});
