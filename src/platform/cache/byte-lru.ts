/**
 * A map that forgets its least recently used entries once what it holds passes `maxBytes`: for
 * caches whose entries differ widely in size, where a bound on their number bounds nothing. The
 * caller says what an entry weighs; an entry heavier than the whole bound is not kept.
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
  /** Each entry dropped to make room (not one replaced or deleted by the caller). */
  onEvict?: (key: string) => void;
}): ByteLru<V> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;

  function remove(key: string): boolean {
    const entry = entries.get(key);
    if (!entry) return false;
    entries.delete(key);
    total -= entry.bytes;
    return true;
  }

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, bytes) {
      remove(key);
      if (bytes > options.maxBytes) return;
      entries.set(key, { value, bytes });
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
