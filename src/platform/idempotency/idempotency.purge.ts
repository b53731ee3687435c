import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { idempotencyRepo } from './idempotency.repo.ts';

/**
 * Deletes at most `batchSize` idempotency records past their 24-hour life and returns how many.
 * Bounded so that one run never holds a long transaction; a scheduler calls it repeatedly (it is
 * meant for the jobs runner: run it every few minutes, again at once while it returns batchSize).
 * Expired rows that are still present are ignored by the request path, so a late purge is harmless.
 */
export async function purgeExpiredIdempotencyKeys(
  store: Store,
  clock: Clock,
  batchSize = 1000,
): Promise<number> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('batchSize must be a positive integer');
  return store.tx((tx) => idempotencyRepo.deleteExpired(tx, clock.now(), batchSize));
}
