import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import type { ExportJob } from './export-job.ts';
import { exportsRepo } from './exports.repo.ts';
import type { ExportFileStorage } from './file-storage.ts';

/** Exports expired per transaction by the cleanup task. */
const EXPIRE_BATCH = 100;
/** An export still unfinished after this long lost its job somehow; the cleanup task fails it. */
const STALE_EXPORT_MS = 24 * 3600_000;
/** A temporary file untouched this long belonged to a worker that died (live writers touch it constantly). */
const ABANDONED_WRITE_MS = 6 * 3600_000;

export interface ExportCleanupDeps {
  store: Store;
  clock: Clock;
  storage: ExportFileStorage;
  job: Pick<ExportJob, 'failStale'>;
}

/**
 * The cleanup task: expires succeeded exports whose time came and deletes their files; fails
 * exports unfinished for a day (their job was lost, which the runner's leases should prevent).
 */
export async function expireDueExports(
  deps: ExportCleanupDeps,
): Promise<{ expired: number; failed: number }> {
  const { store, clock, storage, job } = deps;
  const now = clock.now();
  let expired = 0;
  for (;;) {
    const due = await store.tx(async (tx) => {
      const rows = await exportsRepo.dueToExpire(tx, now, EXPIRE_BATCH);
      for (const row of rows) {
        await exportsRepo.transition(tx, row, ['succeeded'], { status: 'expired', fileKey: null });
      }
      return rows;
    });
    // After the commit: a file is deleted only once no row points at it.
    for (const row of due) if (row.fileKey) await storage.remove(row.fileKey);
    expired += due.length;
    if (due.length < EXPIRE_BATCH) break;
  }
  // The worker's cleanup task: no request, so no request scope.
  const stale = await exportsRepo.staleUnfinished(store.db, new Date(now.getTime() - STALE_EXPORT_MS));
  let failed = 0;
  for (const row of stale) {
    const done = await job.failStale(row);
    if (done) failed++;
  }
  await storage.removeAbandoned(ABANDONED_WRITE_MS);
  return { expired, failed };
}
