/**
 * A cache of values that never change once loaded (a vendor list version, say), for reads whose
 * key anyone may choose: concurrent gets of a key share one load (single flight), and what is kept
 * is bounded by weight (bytes, entries), the least recently used going first. A key whose load
 * fails, or whose value the loader says not to keep, is loaded again by the next get.
 */

export interface Loaded<V> {
  value: V;
  /** What keeping it costs against `maxWeight`; null: answer with it, do not keep it. */
  weight: number | null;
}

export interface LoadingCache<K, V> {
  get(key: K): Promise<V>;
  /** The kept value of `key` without loading it; undefined when none is kept. */
  peek(key: K): V | undefined;
  /** The weight of what is kept (for tests and metrics). */
  readonly weight: number;
  readonly size: number;
}

export function createLoadingCache<K, V>(options: {
  /** Most total weight kept; a value heavier than this alone is answered, not kept. */
  maxWeight: number;
  load: (key: K) => Promise<Loaded<V>>;
}): LoadingCache<K, V> {
  const kept = new Map<K, { value: V; weight: number }>();
  const loading = new Map<K, Promise<V>>();
  let total = 0;

  function keep(key: K, value: V, weight: number) {
    if (weight > options.maxWeight || kept.has(key)) return;
    kept.set(key, { value, weight });
    total += weight;
    // A Map iterates in insertion order, and a hit re-inserts: the first keys are the least recent.
    for (const [old, entry] of kept) {
      if (total <= options.maxWeight) break;
      if (old === key) continue;
      kept.delete(old);
      total -= entry.weight;
    }
  }

  /** The kept entry of `key`, now the most recently used. */
  function touch(key: K) {
    const hit = kept.get(key);
    if (hit) {
      kept.delete(key);
      kept.set(key, hit);
    }
    return hit;
  }

  return {
    peek: (key) => touch(key)?.value,
    get(key) {
      const hit = touch(key);
      if (hit) return Promise.resolve(hit.value);
      const pending = loading.get(key);
      if (pending) return pending;
      const load = options.load(key).then(
        (loaded) => {
          loading.delete(key);
          if (loaded.weight !== null) keep(key, loaded.value, loaded.weight);
          return loaded.value;
        },
        (error: unknown) => {
          loading.delete(key);
          throw error;
        },
      );
      loading.set(key, load);
      return load;
    },
    get weight() {
      return total;
    },
    get size() {
      return kept.size;
    },
  };
}
