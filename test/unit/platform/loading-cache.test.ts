import { describe, expect, it } from 'vitest';
import { createLoadingCache, type Loaded } from '../../../src/platform/loading-cache.ts';

/** A cache over a loader that counts its loads and answers when the test says. */
function counted(maxWeight: number, weightOf: (key: number) => number | null = () => 10) {
  const loads: number[] = [];
  const waiting: Array<() => void> = [];
  let hold = false;
  const cache = createLoadingCache<number, string>({
    maxWeight,
    async load(key): Promise<Loaded<string>> {
      loads.push(key);
      if (hold) await new Promise<void>((resolve) => waiting.push(resolve));
      if (key < 0) throw new Error(`no ${key}`);
      return { value: `v${key}`, weight: weightOf(key) };
    },
  });
  return {
    cache,
    loads,
    holdLoads: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

describe('createLoadingCache', () => {
  it('shares one load among concurrent gets of a key', async () => {
    const { cache, loads, holdLoads, release } = counted(100);
    holdLoads();
    const gets = Array.from({ length: 50 }, () => cache.get(1));
    release();
    expect(await Promise.all(gets)).toEqual(Array(50).fill('v1'));
    expect(loads).toEqual([1]);
    expect(await cache.get(1)).toBe('v1');
    expect(loads).toEqual([1]);
  });

  it('keeps at most maxWeight, dropping the least recently used first', async () => {
    const { cache, loads } = counted(30);
    for (const key of [1, 2, 3]) await cache.get(key);
    expect(cache.weight).toBe(30);
    await cache.get(1); // now the most recent: 2 is the least
    await cache.get(4);
    expect(cache.weight).toBe(30);
    expect(cache.size).toBe(3);
    expect(cache.peek(2)).toBeUndefined();
    expect(cache.peek(1)).toBe('v1');
    const before = loads.length;
    for (const key of [1, 3, 4]) await cache.get(key);
    expect(loads.length).toBe(before);
  });

  it('answers with a value heavier than the whole budget, or one the loader says not to keep, without keeping it', async () => {
    const { cache, loads } = counted(30, (key) => (key === 9 ? 31 : key === 8 ? null : 10));
    await cache.get(1);
    expect(await cache.get(9)).toBe('v9');
    expect(await cache.get(8)).toBe('v8');
    expect(cache.peek(9)).toBeUndefined();
    expect(cache.peek(8)).toBeUndefined();
    expect(cache.peek(1)).toBe('v1');
    await cache.get(9);
    expect(loads.filter((k) => k === 9)).toHaveLength(2);
  });

  it('lets every waiter see a failed load, keeps nothing of it, and loads again on the next get', async () => {
    const { cache, loads, holdLoads, release } = counted(100);
    holdLoads();
    const gets = [cache.get(-1), cache.get(-1)];
    release();
    for (const get of gets) await expect(get).rejects.toThrow('no -1');
    await expect(cache.get(-1)).rejects.toThrow('no -1');
    expect(loads).toEqual([-1, -1]);
    expect(cache.size).toBe(0);
  });
});

// store-independent: the loading cache, in memory
