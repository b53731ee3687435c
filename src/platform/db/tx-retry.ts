import { pgErrorOf } from './pg-errors.ts';

/**
 * The one place a transaction that lost to a concurrent one is run again: PostgreSQL aborts one side
 * of a serialization conflict (SQLSTATE 40001, under REPEATABLE READ or SERIALIZABLE) or a deadlock
 * (40P01) and expects the client to retry the whole transaction. Only whole transactions are retried
 * (`store.tx`, `store.statement`): a savepoint or a statement inside an open transaction cannot be,
 * since the transaction around it is already aborted; its error travels up to the `store.tx` that
 * opened it, and that one runs again from its first statement.
 */
export const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']);

export function isRetryableConflict(error: unknown): boolean {
  const code = pgErrorOf(error)?.code;
  return code !== undefined && RETRYABLE_SQLSTATES.has(code);
}

export interface TxRetryOptions {
  /** Runs in all, the first included. */
  attempts: number;
  /** The backoff before the second run; doubled for each later one, each drawn at random in [0, it]. */
  baseDelayMs: number;
  /** What the backoff never exceeds. */
  maxDelayMs: number;
}

export const TX_RETRY: TxRetryOptions = { attempts: 4, baseDelayMs: 5, maxDelayMs: 100 };

/**
 * Runs `attempt` until it succeeds, fails with an error other than a serialization failure or a
 * deadlock, or has run `attempts` times (then the last error is thrown as it came). Between runs it
 * waits a jittered, exponentially growing delay ("full jitter"), so the transactions that collided
 * do not collide again at once. `onRetry` is told of each conflict that is retried.
 */
export async function withTxRetry<T>(
  attempt: () => Promise<T>,
  options: TxRetryOptions = TX_RETRY,
  onRetry?: (error: unknown, run: number) => void,
): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (error) {
      if (run >= options.attempts || !isRetryableConflict(error)) throw error;
      onRetry?.(error, run);
      const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (run - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
    }
  }
}
