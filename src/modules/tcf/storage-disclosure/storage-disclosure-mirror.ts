import type { Db, Store } from '../../../platform/db/store.ts';
import { tcfRepo } from '../tcf.repo.ts';
import { SourceError } from '../vendor-list/vendor-list-source.ts';
import { type DisclosureFetchOptions, fetchStorageDisclosure } from './storage-disclosure-source.ts';

/**
 * The vendors' device storage disclosures, mirrored beside the vendor list they belong to: for each
 * vendor an active TCF channel uses, the file at its `deviceStorageDisclosureUrl` in that version,
 * fetched by the worker (docs/guides/tcf.md, "Storage disclosures"). A version's slice serves them,
 * so the second layer shows each vendor's cookies and other storage without the visitor's browser
 * ever asking a vendor's host.
 */

/** At most this many files per run, four at a time: a bound on what one run may fetch. */
export const MAX_DISCLOSURES_PER_RUN = 100;
const CONCURRENCY = 4;

export interface StorageDisclosureMirrorDeps extends DisclosureFetchOptions {
  store: Store;
  /** The vendor ids active TCF channels use (channels' tcf-vendors.sql.ts). */
  vendorsInUse: (db: Db) => Promise<number[]>;
  onFetchFailure?: () => void;
}

type Log = { warn(obj: object, msg: string): void };

/**
 * Fetches the disclosures of `version` not held yet; with `retryFailed` (the list was due) also
 * those that failed before. Returns how many failed in this run.
 */
export async function mirrorStorageDisclosures(
  deps: StorageDisclosureMirrorDeps,
  version: number,
  now: Date,
  log: Log,
  retryFailed: boolean,
): Promise<number> {
  const { store } = deps;
  const inUse = await deps.vendorsInUse(store.db);
  const urls = await tcfRepo.disclosureUrls(store.db, version, inUse);
  const held = new Map((await tcfRepo.storageDisclosures(store.db, version)).map((r) => [r.vendorId, r]));
  const due = [...urls]
    .filter(([id, url]) => {
      const row = held.get(id);
      return !row || row.url !== url || (retryFailed && row.body === null);
    })
    .sort(([a], [b]) => a - b)
    .slice(0, MAX_DISCLOSURES_PER_RUN);
  let failures = 0;
  const next = async (): Promise<void> => {
    const item = due.shift();
    if (!item) return;
    const [vendorId, url] = item;
    let body: Record<string, unknown> | null = null;
    let error: string | null = null;
    try {
      body = { ...(await fetchStorageDisclosure(url, deps)) };
    } catch (e) {
      if (!(e instanceof SourceError)) throw e;
      error = e.message.slice(0, 500);
      failures++;
      deps.onFetchFailure?.();
      // The layers say the vendor's details could not be had; the next due run asks again.
      log.warn({ vendorId, vendorListVersion: version, err: error }, 'TCF storage disclosure not fetched');
    }
    await store.tx((tx) =>
      tcfRepo.saveStorageDisclosure(tx, {
        vendorListVersion: version,
        vendorId,
        url,
        body,
        error,
        fetchedAt: now,
      }),
    );
    return next();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, next));
  return failures;
}
