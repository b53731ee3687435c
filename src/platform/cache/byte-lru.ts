/**
 * A map that forgets its least recently used entries once what it holds passes `maxBytes`: for
 * caches whose entries differ widely in size, where a bound on their number bounds nothing. The
 * caller says what an entry weighs; an entry heavier than the whole bound is not kept. With
 * `maxIdleMs`, an entry not used for that long is dropped too, at the next get or set of any
 * entry (the least recently used are first in line, so this costs nothing while none is that old):
 * what a burst left behind is released once it is over.
 */
export interface ByteLru<V> {
  /** The value, now the most recently used; undefined when not held. */
  get(key: string): V | undefined;
  set(key: string, value: V, bytes: number): void;
  delete(key: string): void;
  /** What the held entries weigh together (never above maxBytes). */
  readonly bytes: number;
  readonly size: number;
}

export function createByteLru<V>(options: {
  maxBytes: number;
  /** Each entry dropped to make room or for its age (not one replaced or deleted by the caller). */
  onEvict?: (key: string) => void;
  /** How long an entry may go unused; with `now`, the clock it is measured on (milliseconds). */
  maxIdleMs?: number;
  now?: () => number;
}): ByteLru<V> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { value: V; bytes: number; usedAt: number }>();
  let total = 0;
  const now = options.now ?? Date.now;
  const { maxIdleMs } = options;

  /** Drops the entries unused for maxIdleMs, from the least recently used on. */
  function dropIdle(at: number) {
    if (maxIdleMs === undefined) return;
    for (const [key, entry] of entries) {
      if (at - entry.usedAt < maxIdleMs) return;
      remove(key);
      options.onEvict?.(key);
    }
  }

  function remove(key: string): boolean {
    const entry = entries.get(key);
    if (!entry) return false;
    entries.delete(key);
    total -= entry.bytes;
    return true;
  }

  return {
    get(key) {
      const at = now();
      dropIdle(at);
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entry.usedAt = at;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, bytes) {
      const at = now();
      remove(key);
      dropIdle(at);
      if (bytes > options.maxBytes) return;
      entries.set(key, { value, bytes, usedAt: at });
      total += bytes;
      for (const oldest of entries.keys()) {
        if (total <= options.maxBytes) break;
        remove(oldest);
        options.onEvict?.(oldest);
      }
    },
    delete(key) {
      remove(key);
    },
    get bytes() {
      return total;
    },
    get size() {
      return entries.size;
    },
  };
}
