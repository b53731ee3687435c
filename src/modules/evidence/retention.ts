import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { TEST_RETENTION_MS } from './evidence.schemas.ts';
import { createPartitionsAhead, dropExpiredPartitions } from './partitions.ts';
import { type PurgeTarget, retentionRepo } from './retention.repo.ts';
import { boundedTx, type Deferred, deferredBy, type RetentionObserver } from './retention-locks.ts';

/** Rows per transaction: small enough that no batch holds its row locks for long. */
export const PURGE_BATCH = 500;
/** Batches per run, so one run ends; a backlog larger than this is finished by the next runs. */
const MAX_BATCHES_PER_RUN = 200;

export interface RetentionRun {
  test: number;
  live: number;
  droppedPartitions: string[];
  /** What this run left for the next one (retention-locks.ts); the worker logs each. */
  deferred: Deferred[];
}

/**
 * Retention (partitions.ts). First the partitions ahead are made, then expired partitions are dropped
 * whole: test hours that ended more than 24 hours ago, live months that every channel with events
 * there has outlived. What is left expired is purged row by row in bounded batches, each its own short
 * transaction (rows taken with SKIP LOCKED, so concurrent workers split the work rather than wait):
 * test events in the DEFAULT partition (recorded outside the partitions made), and live events of a
 * channel whose retention ends inside a month still kept for another channel. Such a purge empties
 * the event's content but keeps its id, channel, recordedAt and receipt hash. Either way the ledger's
 * leaves keep every leaf hash, so tree heads and consistency proofs stay verifiable.
 *
 * No step waits long for a lock (retention-locks.ts): one that cannot have its locks now is left for
 * the next run, reported to `observer` and returned, and the others go on.
 */
export async function purgeExpiredEvidence(deps: {
  store: Store;
  clock: Clock;
  observer?: RetentionObserver;
}): Promise<RetentionRun> {
  const { store, clock } = deps;
  const deferred = await createPartitionsAhead(deps);
  const drops = await dropExpiredPartitions({ ...deps, testRetentionMs: TEST_RETENTION_MS });
  deferred.push(...drops.deferred);
  const now = clock.now();
  const { oldestLive } = drops;
  const targets = await boundedTx(store, 'rows', async (tx) => [
    ...(await retentionRepo.testPurgeTargets(tx, new Date(now.getTime() - TEST_RETENTION_MS))),
    ...(oldestLive ? await retentionRepo.livePurgeTargets(tx, now, oldestLive) : []),
  ]);
  const run: RetentionRun = { test: 0, live: 0, droppedPartitions: drops.dropped, deferred };
  await purgeRows(store, now, targets, run);
  for (const step of deferred) deps.observer?.deferred(step.step, step.reason);
  deps.observer?.partitionsWaiting(deferred.filter((d) => d.step === 'drop_partition').length);
  return run;
}

/**
 * Empties the targets' expired events, one batch of each target in turn, so a channel with a large
 * backlog (its retention just shortened, say) does not hold the others back; MAX_BATCHES_PER_RUN in
 * all, the rest for the next runs. A target whose rows are locked past the lock timeout waits for
 * the next run.
 */
async function purgeRows(store: Store, now: Date, targets: PurgeTarget[], run: RetentionRun) {
  let pending = targets;
  for (let batches = 0; pending.length > 0 && batches < MAX_BATCHES_PER_RUN; ) {
    const next: PurgeTarget[] = [];
    for (const target of pending) {
      if (batches++ >= MAX_BATCHES_PER_RUN) break;
      try {
        const n = await boundedTx(store, 'rows', (tx) =>
          retentionRepo.purgeBatch(tx, target, now, PURGE_BATCH),
        );
        run[target.environment] += n;
        if (n === PURGE_BATCH) next.push(target);
      } catch (error) {
        run.deferred.push(deferredBy(error, 'purge_rows', `${target.organizationId}/${target.channelId}`));
      }
    }
    pending = next;
  }
}
