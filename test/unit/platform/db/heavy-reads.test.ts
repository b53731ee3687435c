import { describe, expect, it } from 'vitest';
import {
  createHeavyReads,
  createLightWork,
  poolHeavyReadLimits,
} from '../../../../src/platform/db/heavy-reads.ts';

/** A read that resolves when told to, recording when it started. */
function gate(started: string[], name: string) {
  let release: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    read: async () => {
      started.push(name);
      await done;
      return name;
    },
    release: () => release(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('heavy read turns', () => {
  it('serve waiting organizations in rotation: one organization’s backlog never goes before another’s turn', async () => {
    const turns = createHeavyReads({ concurrency: 1, perOrganization: 1 });
    const started: string[] = [];
    const a1 = gate(started, 'a1');
    const a2 = gate(started, 'a2');
    const a3 = gate(started, 'a3');
    const b1 = gate(started, 'b1');
    const reads = [
      turns.turn('a', a1.read),
      turns.turn('a', a2.read),
      turns.turn('a', a3.read),
      turns.turn('b', b1.read),
    ];
    await settle();
    expect(started).toEqual(['a1']);
    expect(turns.counts()).toEqual({ running: 1, waiting: 3 });
    a1.release();
    await settle();
    // b waited behind a's running turn only, not behind a's backlog.
    expect(started).toEqual(['a1', 'b1']);
    b1.release();
    await settle();
    a2.release();
    await settle();
    a3.release();
    expect(await Promise.all(reads)).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(turns.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it('hold at most the caps: all together, and one organization', async () => {
    const turns = createHeavyReads({ concurrency: 3, perOrganization: 2 });
    const started: string[] = [];
    const gates = ['a1', 'a2', 'a3', 'b1', 'b2'].map((name) => gate(started, name));
    const reads = gates.map((g) => turns.turn(g === gates[3] || g === gates[4] ? 'b' : 'a', g.read));
    await settle();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    gates[0].release();
    await settle();
    // a is at its cap of two once a3 starts; b2 waits for a free slot.
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    for (const g of gates) g.release();
    await Promise.all(reads);
    expect(started).toHaveLength(5);
  });

  it('free the slot of a read that fails', async () => {
    const turns = createHeavyReads({ concurrency: 1, perOrganization: 1 });
    await expect(
      turns.turn('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await turns.turn('a', async () => 'next')).toBe('next');
  });

  it('a pool keeps half its connections from heavy turns, and a quarter per organization', () => {
    expect(poolHeavyReadLimits(10)).toEqual({ concurrency: 5, perOrganization: 2 });
    expect(poolHeavyReadLimits(5)).toEqual({ concurrency: 2, perOrganization: 1 });
    expect(poolHeavyReadLimits(1)).toEqual({ concurrency: 1, perOrganization: 1 });
  });

  it('on the embedded store, a turn starts once the light work in flight is done', async () => {
    const light = createLightWork(10_000);
    const turns = createHeavyReads({ concurrency: 1, perOrganization: 1 }, { beforeTurn: light.yieldTo });
    const events: string[] = [];
    let finishLight: () => void = () => {};
    const lightWork = light.wrap(
      () =>
        new Promise<void>((resolve) => {
          finishLight = () => {
            events.push('light done');
            resolve();
          };
        }),
    );
    const heavy = turns.turn('a', async () => {
      events.push('heavy');
    });
    for (let i = 0; i < 5; i++) await settle();
    expect(events).toEqual([]);
    expect(light.inFlight).toBe(1);
    finishLight();
    await lightWork;
    await heavy;
    expect(events).toEqual(['light done', 'heavy']);
  });
});

// store-independent: the turn scheduler and the light-work counter, in memory
