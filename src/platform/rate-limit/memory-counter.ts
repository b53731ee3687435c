/**
 * Fixed-window counters in this process: the default store, and the fallback while Redis is
 * unreachable. Entries of past windows are dropped when a new window starts, so memory stays
 * bounded by the number of callers active in one window.
 */
export function createMemoryCounter() {
  const counts = new Map<string, number>();
  let currentWindow = -1;
  return {
    increment(key: string, window: number): number {
      if (window > currentWindow) {
        for (const k of counts.keys()) if (!k.endsWith(`|${window}`)) counts.delete(k);
        currentWindow = window;
      }
      const slot = `${key}|${window}`;
      const next = (counts.get(slot) ?? 0) + 1;
      counts.set(slot, next);
      return next;
    },
  };
}

export type MemoryCounter = ReturnType<typeof createMemoryCounter>;
