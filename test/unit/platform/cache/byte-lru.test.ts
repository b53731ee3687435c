import { describe, expect, it } from 'vitest';
import { createByteLru } from '../../../../src/platform/cache/byte-lru.ts';

describe('createByteLru', () => {
  it('drops the least recently used entries once the bytes pass the bound', () => {
    const evicted: string[] = [];
    const lru = createByteLru<string>({ maxBytes: 10, onEvict: (key) => evicted.push(key) });
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recently used
    lru.set('c', 'C', 4);
    expect(evicted).toEqual(['b']);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.bytes, lru.size]).toEqual([8, 2]);
    lru.set('d', 'D', 10);
    expect(evicted).toEqual(['b', 'a', 'c']);
    expect([lru.bytes, lru.size]).toEqual([10, 1]);
  });

  it('replaces an entry in place, keeps none heavier than the bound, and forgets deleted ones', () => {
    const evicted: string[] = [];
    const lru = createByteLru<number>({ maxBytes: 10, onEvict: (key) => evicted.push(key) });
    lru.set('a', 1, 6);
    lru.set('a', 2, 3);
    expect([lru.get('a'), lru.bytes]).toEqual([2, 3]);
    lru.set('huge', 3, 11);
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.bytes).toBe(3);
    lru.delete('a');
    expect([lru.bytes, lru.size]).toEqual([0, 0]);
    expect(evicted).toEqual([]);
  });

  it('drops entries unused for maxIdleMs at the next get or set, and keeps those in use', () => {
    const evicted: string[] = [];
    let clock = 0;
    const lru = createByteLru<string>({
      maxBytes: 100,
      maxIdleMs: 1000,
      now: () => clock,
      onEvict: (key) => evicted.push(key),
    });
    lru.set('a', 'A', 10);
    lru.set('b', 'B', 10);
    clock = 600;
    expect(lru.get('a')).toBe('A');
    clock = 1100;
    // b was last used at 0: gone; a at 600: kept.
    expect(lru.get('a')).toBe('A');
    expect(evicted).toEqual(['b']);
    expect([lru.bytes, lru.size]).toEqual([10, 1]);
    clock = 2100;
    expect(lru.get('a')).toBeUndefined();
    lru.set('c', 'C', 10);
    expect(evicted).toEqual(['b', 'a']);
    expect([lru.bytes, lru.size]).toEqual([10, 1]);
  });
});

// store-independent: the byte-bounded LRU, in memory
