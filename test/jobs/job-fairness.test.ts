import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/platform/clock.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { createJobQueue } from '../../src/platform/jobs/job-queue.ts';
import { createJobRunner } from '../../src/platform/jobs/job-runner.ts';
import { openTestStore } from '../helpers/app.ts';

/**
 * One tenant cannot hold what every tenant needs: each job kind has its own slots, and within a
 * kind a free slot goes to the organization running the fewest jobs of it. Every assertion here
 * is about order (what ran before what, what ran while what held its slot), never about time.
 */

let store: Store;
const silent = { warn() {}, error() {}, info() {}, debug() {} } as never;

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

const unique = (name: string) => `test.${name}.${Math.random().toString(36).slice(2)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A runner on its own clock; `concurrency` is the slots of a kind that names none. */
function setup(concurrency = 1) {
  const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
  const queue = createJobQueue({ clock });
  const runner = createJobRunner({ store, clock, queue, log: silent, concurrency });
  return { clock, queue, runner };
}

/** A gate slow jobs wait at: they end when it opens, or after `limitMs` (so a failing test ends). */
function gate(limitMs = 10_000) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    open,
    wait: () => Promise.race([opened.then(() => true), sleep(limitMs).then(() => false)]),
  };
}

describe('job kinds have their own slots', () => {
  it('sealing runs while one organization’s slow jobs hold every slot of their kind', async () => {
    const { clock, queue, runner } = setup(4);
    const slow = unique('slow-scan');
    const seal = unique('seal');
    const sealed = gate();
    let started = 0;
    let finished = 0;
    let finishedBeforeSeal = -1;
    let heldWhileSealing = -1;
    // Slow jobs (scans of a page that never loads) wait for the seal, or 10 s.
    runner.register(
      slow,
      async () => {
        started++;
        await sealed.wait();
        finished++;
      },
      { concurrency: 2 },
    );
    runner.every(seal, 5_000, async () => {
      finishedBeforeSeal = finished;
      heldWhileSealing = started - finished;
      sealed.open();
    });
    // The flood is older than the seal's run, as in production: it was queued first.
    for (let n = 0; n < 6; n++) {
      await store.tx((tx) => queue.enqueue(tx, { kind: slow, organizationId: 'org_flood', payload: { n } }));
    }
    clock.advance(1_000);
    await runner.runDue();
    expect(finishedBeforeSeal, 'no slow job had to end before the seal ran').toBe(0);
    expect(heldWhileSealing, 'the seal ran while slow jobs held their slots').toBeGreaterThan(0);
    expect(finished).toBe(6);
  }, 60_000);

  it('a kind’s slots cap its jobs at once, whatever the other kinds do', async () => {
    const { queue, runner } = setup(8);
    const kind = unique('capped');
    let now = 0;
    let most = 0;
    runner.register(
      kind,
      async () => {
        most = Math.max(most, ++now);
        await sleep(20);
        now--;
      },
      { concurrency: 2 },
    );
    for (let n = 0; n < 6; n++)
      await store.tx((tx) => queue.enqueue(tx, { kind, organizationId: 'org_a', payload: {} }));
    expect(await runner.runDue()).toBe(6);
    expect(most).toBe(2);
  });
});

describe('within a kind, organizations share the slots', () => {
  it('a free slot goes to the organization running the fewest, not to the oldest job', async () => {
    const { clock, queue, runner } = setup();
    const kind = unique('deliveries');
    const order: string[] = [];
    runner.register(kind, async (payload: { label: string }) => void order.push(payload.label), {
      concurrency: 2,
    });
    for (let n = 1; n <= 6; n++) {
      await store.tx((tx) =>
        queue.enqueue(tx, { kind, organizationId: 'org_flood', payload: { label: `flood-${n}` } }),
      );
    }
    clock.advance(1_000);
    await store.tx((tx) =>
      queue.enqueue(tx, { kind, organizationId: 'org_other', payload: { label: 'other' } }),
    );
    clock.advance(1_000);
    await store.tx((tx) => queue.enqueue(tx, { kind, payload: { label: 'system' } }));
    expect(await runner.runDue()).toBe(8);
    // First round: the flood's oldest, then the other organization (0 running against 1).
    expect(order.slice(0, 2).sort()).toEqual(['flood-1', 'other']);
    // Jobs without an organization are a group of their own: in the second round.
    expect(order.indexOf('system')).toBeLessThan(4);
    // Within one organization, oldest first.
    expect(order.filter((label) => label.startsWith('flood'))).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `flood-${n}`),
    );
  });

  it('one organization holds at most its share of a kind’s slots', async () => {
    const { clock, queue, runner } = setup();
    const kind = unique('scans');
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    const order: string[] = [];
    runner.register(
      kind,
      async (payload: { org: string; label: string }) => {
        order.push(payload.label);
        running.set(payload.org, (running.get(payload.org) ?? 0) + 1);
        most.set(payload.org, Math.max(most.get(payload.org) ?? 0, running.get(payload.org)!));
        await sleep(20);
        running.set(payload.org, running.get(payload.org)! - 1);
      },
      { concurrency: 2, perOrganization: 1 },
    );
    for (let n = 1; n <= 3; n++) {
      await store.tx((tx) =>
        queue.enqueue(tx, {
          kind,
          organizationId: 'org_flood',
          payload: { org: 'org_flood', label: `flood-${n}` },
        }),
      );
    }
    clock.advance(1_000);
    await store.tx((tx) =>
      queue.enqueue(tx, {
        kind,
        organizationId: 'org_other',
        payload: { org: 'org_other', label: 'other' },
      }),
    );
    expect(await runner.runDue()).toBe(4);
    expect(most.get('org_flood')).toBe(1);
    expect(order.slice(0, 2).sort()).toEqual(['flood-1', 'other']);
  });

  it('counts the jobs other workers run: a second worker serves whom the first does not', async () => {
    const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
    const queue = createJobQueue({ clock });
    const kind = unique('shared');
    const held = gate();
    const startedBy: Array<[string, string]> = [];
    const worker = (name: string) => {
      const runner = createJobRunner({ store, clock, queue, log: silent });
      runner.register(
        kind,
        async (payload: { label: string }) => {
          startedBy.push([name, payload.label]);
          if (name === 'first') await held.wait();
        },
        { concurrency: 2 },
      );
      return runner;
    };
    const first = worker('first');
    const second = worker('second');
    for (let n = 1; n <= 4; n++) {
      await store.tx((tx) =>
        queue.enqueue(tx, { kind, organizationId: 'org_flood', payload: { label: `flood-${n}` } }),
      );
    }
    // The first worker takes two of the flood's jobs and holds them.
    clock.advance(1_000);
    const firstRun = first.runDue();
    for (let i = 0; i < 200 && startedBy.length < 2; i++) await sleep(25);
    expect(startedBy).toEqual([
      ['first', 'flood-1'],
      ['first', 'flood-2'],
    ]);
    await store.tx((tx) =>
      queue.enqueue(tx, { kind, organizationId: 'org_other', payload: { label: 'other' } }),
    );
    // The flood runs 2 (on the first worker), the other organization none: its job goes first,
    // though the flood's remaining jobs are older.
    const secondRun = second.runDue();
    for (let i = 0; i < 200 && startedBy.length < 3; i++) await sleep(25);
    expect(startedBy[2]).toEqual(['second', 'other']);
    held.open();
    await Promise.all([firstRun, secondRun]);
    expect(startedBy.map(([, label]) => label).sort()).toEqual([
      'flood-1',
      'flood-2',
      'flood-3',
      'flood-4',
      'other',
    ]);
  }, 60_000);
});
