import type { Clock } from '../../platform/clock.ts';
import type { Db, Store, Tx } from '../../platform/db/store.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import { type MirrorStateRow, tcfRepo, type VendorListLanguageRow, type VendorListRow } from './tcf.repo.ts';
import {
  createVendorListMirror,
  VENDOR_LIST_JOB,
  type VendorListMirrorDeps,
  vendorListLanguage,
} from './vendor-list-mirror.ts';

export type { MirrorStateRow, VendorListLanguageRow, VendorListRow } from './tcf.repo.ts';
export { VENDOR_LIST_JOB, VENDOR_LIST_POLL_MS, vendorListLanguage } from './vendor-list-mirror.ts';
export {
  type GvlVendor,
  isDeleted,
  VENDOR_ID_LISTS,
  vendorListArrays,
  vendorListSlice,
} from './vendor-list-view.ts';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Versions whose bodies a process keeps in memory (the newest and the few strings still name). */
const CACHED_VERSIONS = 4;

/**
 * The IAB TCF module (docs/guides/tcf.md): the Global Vendor List mirror the worker keeps, and what
 * other modules ask of it (the newest list to check a channel's vendors against; whether a TC
 * string's vendor list version is one the service knows; a version's translations).
 */
export function createTcfService(
  deps: Omit<VendorListMirrorDeps, 'baseUrl'> & {
    store: Store;
    clock: Clock;
    /** TCF_GVL_URL. */
    gvlUrl: string;
    jobs: JobQueue;
    /** Metrics: a version's body read from the database. */
    onLoad?: () => void;
  },
) {
  const mirror = createVendorListMirror({ ...deps, baseUrl: deps.gvlUrl });
  // A version never changes once stored, so its parsed body (IAB's is a few MiB of JSON) is kept in
  // memory: the public slice and the TC string checks then read no large row per request.
  const cached = new Map<number, VendorListRow>();
  async function vendorList(db: Db, vendorListVersion: number): Promise<VendorListRow | null> {
    const hit = cached.get(vendorListVersion);
    if (hit) return hit;
    const row = await tcfRepo.byVersion(db, vendorListVersion);
    deps.onLoad?.();
    if (row) {
      if (cached.size >= CACHED_VERSIONS) cached.delete(cached.keys().next().value as number);
      // Shared by every caller: frozen, so a caller that changed it would fail loudly, not corrupt it.
      cached.set(vendorListVersion, deepFreeze(row));
    }
    return row;
  }
  return {
    /** The worker's job (worker.ts runs it every VENDOR_LIST_POLL_MS); the API role never fetches. */
    mirror,
    /** The newest vendor list the mirror holds; null before the first successful fetch. */
    async latestVendorList(db: Db): Promise<VendorListRow | null> {
      const version = await tcfRepo.latestVersion(db);
      return version === null ? null : vendorList(db, version);
    },
    /** One version of the vendor list; null when the mirror never fetched it. */
    vendorList,
    /**
     * The translations of a version in `language` (a BCP 47 tag: `fr-CA` reads `fr`); null when
     * the mirror holds none (English is the list itself: always null).
     */
    languageFile(db: Db, vendorListVersion: number, language: string): Promise<VendorListLanguageRow | null> {
      const primary = vendorListLanguage(language);
      if (!primary || primary === 'en') return Promise.resolve(null);
      return tcfRepo.languageFile(db, vendorListVersion, primary);
    },
    /** When the mirror fetches next, its last success and its last error. */
    mirrorState(db: Db): Promise<MirrorStateRow | null> {
      return tcfRepo.state(db);
    },
    /**
     * Makes the mirror fetch at the worker's next poll (a channel now needs a language the mirror
     * lacks, say), instead of when the current list goes stale. Commits with `tx`.
     */
    async requestRefresh(tx: Tx): Promise<void> {
      await tcfRepo.makeDue(tx);
      await deps.jobs.enqueue(tx, {
        kind: VENDOR_LIST_JOB,
        payload: {},
        dedupeKey: `${VENDOR_LIST_JOB}:refresh`,
        maxAttempts: 3,
      });
    },
  };
}

export type TcfService = ReturnType<typeof createTcfService>;
