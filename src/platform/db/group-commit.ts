import { isDatabaseUnavailable } from './pg-errors.ts';

export interface GroupCommitOptions<T, R> {
  /** Writes every item in one transaction; resolves only once it has committed, with one result per item. */
  commit: (items: T[]) => Promise<R[]>;
  /** Most items in one transaction. */
  maxBatch: number;
  /** Most transactions open at once (each holds a pool connection). */
  maxInFlight: number;
  /**
   * While a batch is committing, another starts only once this many items wait (default 1: at
   * once). Until then they gather for the next batch: fewer, larger batches cost less per item.
   */
  minBatchWhileBusy?: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes submitted while earlier batches are committing wait and go together in the
 * next transaction, so under load N requests share one transaction, a few multi-row statements and
 * one WAL flush instead of N of each. Each `submit` settles only after its own batch committed, so
 * a caller that acknowledges after `await submit(…)` never acknowledges an uncommitted write.
 *
 * The wait is bounded by one event-loop turn when idle (items submitted in the same turn share a
 * batch) and by the batch ahead of it under load. If a batch fails for any reason but an
 * unreachable database, its items are committed one by one, so one bad item cannot fail the others.
 */
export function createGroupCommit<T, R>(options: GroupCommitOptions<T, R>) {
  const { commit, maxBatch, maxInFlight } = options;
  const minBatchWhileBusy = options.minBatchWhileBusy ?? 1;
  const queue: Waiting<T, R>[] = [];
  let inFlight = 0;
  let pumpScheduled = false;

  async function commitAlone(waiting: Waiting<T, R>) {
    try {
      const [result] = await commit([waiting.item]);
      waiting.resolve(result);
    } catch (error) {
      waiting.reject(error);
    }
  }

  async function run(batch: Waiting<T, R>[]) {
    try {
      const results = await commit(batch.map((waiting) => waiting.item));
      for (const [i, waiting] of batch.entries()) waiting.resolve(results[i]);
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) await commitAlone(waiting);
    }
  }

  function pump() {
    pumpScheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      if (inFlight > 0 && queue.length < minBatchWhileBusy) return;
      const batch = queue.splice(0, maxBatch);
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    submit(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!pumpScheduled) {
          pumpScheduled = true;
          setImmediate(pump);
        }
      });
    },
  };
}

export type GroupCommit<T, R> = ReturnType<typeof createGroupCommit<T, R>>;
