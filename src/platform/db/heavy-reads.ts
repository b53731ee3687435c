/**
 * Heavy reads (a year of analytics, an export's batches, a lookup of many subjects) run as turns:
 * short statements, each waiting for a slot. Organizations take the slots in rotation, so one
 * organization's heavy reads wait behind each other, never in front of another's; and a slot is
 * only ever a share of the store, so the light work every tenant needs (a visitor's decision, a key
 * check) always finds room.
 *
 * - Embedded store (one connection, and a statement runs on the event loop): one turn at a time,
 *   and a turn starts only once the light statements in flight are done (at most `maxYieldMs`
 *   later, so a steady stream of light work slows heavy reads without stopping them).
 * - PostgreSQL (a pool): at most half the pool's connections run heavy turns, and one organization
 *   at most a quarter of them (at least one each).
 */
export interface HeavyReads {
  /** Runs `read` as one turn of `organizationId`'s heavy reads, once a slot is free for it. */
  turn<T>(organizationId: string, read: () => Promise<T>): Promise<T>;
  /** Turns running and waiting now, all organizations together (the metrics). */
  counts(): { running: number; waiting: number };
  readonly limits: HeavyReadLimits;
}

export interface HeavyReadLimits {
  /** Turns running at once, all organizations together. */
  concurrency: number;
  /** Turns of one organization running at once. */
  perOrganization: number;
}

/** The slots of a pool of `connections`: half of them for heavy turns, a quarter for one organization. */
export function poolHeavyReadLimits(connections: number): HeavyReadLimits {
  return {
    concurrency: Math.max(1, Math.floor(connections / 2)),
    perOrganization: Math.max(1, Math.floor(connections / 4)),
  };
}

export function createHeavyReads(
  limits: HeavyReadLimits,
  options: {
    /** Awaited once a turn has its slot, before it runs (the embedded store: light work first). */
    beforeTurn?: () => Promise<void>;
  } = {},
): HeavyReads {
  /** Waiting turns by organization, in the order each organization began to wait. */
  const waiting = new Map<string, Array<() => void>>();
  const runningOf = new Map<string, number>();
  /**
   * When each organization with turns running or waiting last started one (a sequence number): the
   * next slot goes to the waiting organization served longest ago, one never served first.
   */
  const lastServed = new Map<string, number>();
  let served = 0;
  let running = 0;
  let queued = 0;

  function next(): string | undefined {
    let chosen: string | undefined;
    let chosenAt = Number.POSITIVE_INFINITY;
    for (const organizationId of waiting.keys()) {
      if ((runningOf.get(organizationId) ?? 0) >= limits.perOrganization) continue;
      const at = lastServed.get(organizationId) ?? -1;
      if (at < chosenAt) {
        chosen = organizationId;
        chosenAt = at;
      }
    }
    return chosen;
  }

  function startNext() {
    while (running < limits.concurrency) {
      const chosen = next();
      if (chosen === undefined) return;
      const queue = waiting.get(chosen)!;
      const start = queue.shift()!;
      if (queue.length === 0) waiting.delete(chosen);
      queued--;
      running++;
      runningOf.set(chosen, (runningOf.get(chosen) ?? 0) + 1);
      lastServed.set(chosen, served++);
      start();
    }
  }

  function finish(organizationId: string) {
    running--;
    const left = (runningOf.get(organizationId) ?? 1) - 1;
    if (left > 0) runningOf.set(organizationId, left);
    else {
      runningOf.delete(organizationId);
      // Nothing of it left: its place in the rotation goes too (the maps hold only the active).
      if (!waiting.has(organizationId)) lastServed.delete(organizationId);
    }
    startNext();
  }

  return {
    limits,
    async turn(organizationId, read) {
      await new Promise<void>((start) => {
        const queue = waiting.get(organizationId);
        if (queue) queue.push(start);
        else waiting.set(organizationId, [start]);
        queued++;
        startNext();
      });
      try {
        await options.beforeTurn?.();
        return await read();
      } finally {
        finish(organizationId);
      }
    },
    counts: () => ({ running, waiting: queued }),
  };
}

/**
 * Counts the statements in flight on the embedded store's connection, and tells a heavy turn when
 * none is: `wrap` goes around the client's statement methods (a transaction counts from its start
 * to its end).
 */
export function createLightWork(maxYieldMs: number) {
  let inFlight = 0;
  let idle: Array<() => void> = [];
  const settled = () => {
    inFlight--;
    if (inFlight > 0 || idle.length === 0) return;
    const waiters = idle;
    idle = [];
    for (const wake of waiters) wake();
  };
  const whenIdle = (timeoutMs: number) =>
    new Promise<void>((resolve) => {
      if (inFlight === 0) return resolve();
      const timer = setTimeout(resolve, timeoutMs);
      idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return {
    /** `run` counted as light work while it runs. */
    wrap<T>(run: () => Promise<T>): Promise<T> {
      inFlight++;
      let result: Promise<T>;
      try {
        result = run();
      } catch (error) {
        settled();
        throw error;
      }
      return result.finally(settled);
    },
    /**
     * Resolves once no light statement is in flight (after at most maxYieldMs). Each time, two
     * check phases of the event loop pass first: requests that arrived while the last statement
     * ran are read in the I/O phase between them, and the work they start in a check phase of its
     * own (the group commit's batch) has sent its statements before this looks.
     */
    async yieldTo(): Promise<void> {
      const deadline = Date.now() + maxYieldMs;
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        const left = deadline - Date.now();
        if (inFlight === 0 || left <= 0) return;
        await whenIdle(left);
      }
    },
    get inFlight() {
      return inFlight;
    },
  };
}
