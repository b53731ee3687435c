import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { evidenceRepo } from './evidence.repo.ts';
import { createPartitionsAhead, dropExpiredPartitions } from './partitions.ts';

/** Test evidence is kept one day; live evidence its channel's retentionDays. */
export const TEST_RETENTION_MS = 24 * 3600_000;
/** Rows per transaction: small enough that no batch holds its row locks for long. */
export const PURGE_BATCH = 500;
/** Batches per run, so one run ends; a backlog larger than this is finished by the next runs. */
const MAX_BATCHES_PER_RUN = 200;

/**
 * Retention (partitions.ts). First the partitions ahead are made, then expired partitions are dropped
 * whole: test hours that ended more than 24 hours ago, live months that every channel with events
 * there has outlived. What is left expired is purged row by row in bounded batches, each its own short
 * transaction (rows taken with SKIP LOCKED, so concurrent workers split the work rather than wait):
 * test events in the DEFAULT partition (recorded outside the partitions made), and live events of a
 * channel whose retention ends inside a month still kept for another channel. Such a purge empties
 * the event's content but keeps its id, channel, recordedAt and receipt hash. Either way the ledger's
 * leaves keep every leaf hash, so tree heads and consistency proofs stay verifiable.
 */
export async function purgeExpiredEvidence(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  await createPartitionsAhead(deps);
  const dropped = await dropExpiredPartitions({ ...deps, testRetentionMs: TEST_RETENTION_MS });
  const now = clock.now();
  const testCutoff = new Date(now.getTime() - TEST_RETENTION_MS);
  const purged = { test: 0, live: 0, droppedPartitions: dropped };
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const n = await store.tx((tx) => evidenceRepo.purgeTestBatch(tx, testCutoff, now, PURGE_BATCH));
    purged.test += n;
    if (n < PURGE_BATCH) break;
  }
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const n = await store.tx((tx) => evidenceRepo.purgeLiveBatch(tx, now, PURGE_BATCH));
    purged.live += n;
    if (n < PURGE_BATCH) break;
  }
  return purged;
}
