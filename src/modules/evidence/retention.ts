import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { evidenceRepo } from './evidence.repo.ts';

/** Test evidence is kept one day; live evidence its channel's retentionDays. */
export const TEST_RETENTION_MS = 24 * 3600_000;
/** The smallest retentionDays a channel can have (the range is 1–3650). */
const MIN_RETENTION_MS = 24 * 3600_000;
/** Rows per transaction: small enough that no batch holds its row locks for long. */
export const PURGE_BATCH = 500;
/** Batches per run, so one run ends; a backlog larger than this is finished by the next runs. */
const MAX_BATCHES_PER_RUN = 200;

/**
 * Purges expired evidence in bounded batches, each its own short transaction (rows taken with
 * SKIP LOCKED, so concurrent workers split the work rather than wait). Returns how many were purged.
 * A purge empties the event's content but keeps its id, channel, recordedAt and receipt hash, which
 * the ledger needs to stay verifiable.
 */
export async function purgeExpiredEvidence(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const now = clock.now();
  const testCutoff = new Date(now.getTime() - TEST_RETENTION_MS);
  const liveMinCutoff = new Date(now.getTime() - MIN_RETENTION_MS);
  const purged = { test: 0, live: 0 };
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const n = await store.tx((tx) => evidenceRepo.purgeTestBatch(tx, testCutoff, now, PURGE_BATCH));
    purged.test += n;
    if (n < PURGE_BATCH) break;
  }
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const n = await store.tx((tx) => evidenceRepo.purgeLiveBatch(tx, now, liveMinCutoff, PURGE_BATCH));
    purged.live += n;
    if (n < PURGE_BATCH) break;
  }
  return purged;
}
