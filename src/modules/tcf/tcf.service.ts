import type { Clock } from '../../platform/clock.ts';
import type { Db, Store, Tx } from '../../platform/db/store.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import { createLoadingCache, type Loaded } from '../../platform/loading-cache.ts';
import type { ListFacts } from './tc-strings/tc-string-channel-rules.ts';
import { createServedTcStrings } from './tc-strings/tc-string-served.ts';
import { type MirrorStateRow, tcfRepo, type VendorListLanguageRow, type VendorListRow } from './tcf.repo.ts';
import {
  type AtpListMirrorDeps,
  type AtpListRow,
  atpRepo,
  createAtpListMirror,
} from './vendor-list/atp-list-mirror.ts';
import type { AtpProvider } from './vendor-list/atp-list-shape.ts';
import {
  createVendorListMirror,
  type VendorListMirrorDeps,
  vendorListLanguage,
} from './vendor-list/vendor-list-mirror.ts';
import { checkVendorList } from './vendor-list/vendor-list-shape.ts';

/** The purposes GVL v3 defines, for a list that lists none (every purpose bit then counts as known). */
const GVL_V3_PURPOSES = 11;

/**
 * The vendor list mirror's recurring job: it wakes every minute and fetches when the mirror state
 * says it is due. Named here, beside the ATP list's, since this service enqueues both and the
 * worker runs them (the mirrors themselves never name their job).
 */
export const VENDOR_LIST_JOB = 'tcf.vendor-list';
export const VENDOR_LIST_POLL_MS = 60_000;

/** The ATP list mirror's recurring job (Additional Consent): it wakes every minute, fetches when due and wanted. */
export const ATP_LIST_JOB = 'tcf.atp-list';
export const ATP_LIST_POLL_MS = 60_000;
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * JSON characters of vendor list bodies a process keeps in memory (about as many bytes; the parsed
 * objects take a few times that): four lists of the largest size a host may send, dozens of
 * IAB's. Anyone may ask for any version a channel used, so what is kept is bounded by size, not
 * by count.
 */
export const VENDOR_LIST_CACHE_CHARS = 64 * 1024 * 1024;

/**
 * The IAB TCF module (docs/guides/tcf.md): the Global Vendor List mirror the worker keeps, and what
 * other modules ask of it (the newest list to check a channel's vendors against; whether a TC
 * string's vendor list version is one the service knows; a version's translations).
 */
export function createTcfService(
  deps: Omit<VendorListMirrorDeps, 'baseUrl' | 'onNewVendorList'> & {
    store: Store;
    clock: Clock;
    /** TCF_GVL_URL. */
    gvlUrl: string;
    jobs: JobQueue;
    /** Metrics: a version's body read from the database. */
    onLoad?: () => void;
    /** Metrics: an ask for the list while none is held, and whether it made the fetch due. */
    onAsk?: (outcome: 'due' | 'backing_off') => void;
    /** Google's ATP list (Additional Consent): GOOGLE_ATP_URL and what uses it. */
    atp: Omit<AtpListMirrorDeps, 'store' | 'clock'>;
  },
) {
  const atpMirror = createAtpListMirror({ ...deps.atp, store: deps.store, clock: deps.clock });
  /** What runs in the transaction storing a version newer than every other (whenNewVendorList). */
  const newListListeners: Array<NonNullable<VendorListMirrorDeps['onNewVendorList']>> = [];
  const mirror = createVendorListMirror({
    ...deps,
    baseUrl: deps.gvlUrl,
    onNewVendorList: async (tx, version) => {
      for (const listener of newListListeners) await listener(tx, version);
    },
  });
  /**
   * A version as the service uses it: checked again as it is read, so a row stored before the
   * checks of vendor-list-shape.ts existed is served cut down to the format's fields, or not at all.
   */
  async function readVersion(db: Db, version: number): Promise<Loaded<VendorListRow | null>> {
    const row = await tcfRepo.byVersion(db, version);
    deps.onLoad?.();
    // Not stored (yet): asked again next time, the mirror may have stored it by then.
    if (!row) return { value: null, weight: null };
    let checked: ReturnType<typeof checkVendorList>;
    try {
      checked = checkVendorList(row.body);
    } catch {
      // Versions never change: an unreadable one stays unreadable, and costs no read again.
      return { value: null, weight: 64 };
    }
    // Shared by every caller: frozen, so a caller that changed it would fail loudly, not corrupt it.
    return { value: deepFreeze({ ...row, body: checked.body }), weight: checked.size };
  }
  /**
   * A version never changes once stored, so its body (IAB's is a few MiB of JSON) is read once per
   * process, by one query however many requests want it at the same time, and kept within
   * VENDOR_LIST_CACHE_CHARS.
   */
  const cached = createLoadingCache<number, VendorListRow | null>({
    maxWeight: VENDOR_LIST_CACHE_CHARS,
    load: (version) => readVersion(deps.store.db, version),
  });
  /** One version of the vendor list; null when the mirror never fetched it (or it cannot be read). */
  async function vendorList(db: Db, vendorListVersion: number): Promise<VendorListRow | null> {
    if (!Number.isInteger(vendorListVersion) || vendorListVersion < 1) return null;
    if (db === deps.store.db) return cached.get(vendorListVersion);
    // Inside a transaction (a channel adopting the version its transaction just stored): read
    // through it, never joining a read of another flow, which on the embedded store would wait for
    // this transaction; and keep nothing it read, which may not commit.
    return cached.peek(vendorListVersion) ?? (await readVersion(db, vendorListVersion)).value;
  }
  /** The mirror's job, now rather than at its next poll (one queued at a time). */
  const enqueueRun = (tx: Tx) =>
    deps.jobs.enqueue(tx, {
      kind: VENDOR_LIST_JOB,
      payload: {},
      dedupeKey: `${VENDOR_LIST_JOB}:refresh`,
      maxAttempts: 3,
    });
  /**
   * Makes the mirror fetch at once whatever its state, back-off included (an operator's or a
   * test's refresh), instead of when the current list goes stale. Commits with `tx`.
   */
  async function requestRefresh(tx: Tx): Promise<void> {
    await tcfRepo.makeDue(tx);
    await enqueueRun(tx);
  }
  /**
   * The list is wanted and none is held (the vendor list route, TCF settings saved): the worker
   * fetches now, unless failed fetches have put the next one off. The back-off holds whoever asks:
   * while the host is down, every request asking again must not become a fetch of its own.
   */
  async function requestFetch(): Promise<void> {
    const due = await deps.store.tx(async (tx) => {
      const made = await tcfRepo.askForFetch(tx);
      if (made) await enqueueRun(tx);
      return made;
    });
    deps.onAsk?.(due ? 'due' : 'backing_off');
  }
  return {
    /** The worker's job (worker.ts runs it every VENDOR_LIST_POLL_MS); the API role never fetches. */
    mirror,
    /**
     * Registers what a module runs in the transaction that stores a vendor list version newer than
     * every other (channels adopt it): registered by the dependent once it exists (services.ts), so
     * this module is built first and holds no reference to one declared after it.
     */
    whenNewVendorList(listener: (tx: Tx, vendorListVersion: number) => Promise<void>): void {
      newListListeners.push(listener);
    },
    /** The newest vendor list the mirror holds; null before the first successful fetch. */
    async latestVendorList(db: Db): Promise<VendorListRow | null> {
      const version = await tcfRepo.latestVersion(db);
      return version === null ? null : vendorList(db, version);
    },
    /** One version of the vendor list; null when the mirror never fetched it. */
    vendorList,
    /**
     * What a decision's TC string is checked against of the vendor list version it names: its
     * policy version and its highest purpose id (GVL v3 defines 11); null when not held.
     */
    async vendorListFacts(version: number): Promise<ListFacts | null> {
      const list = await vendorList(deps.store.db, version);
      if (!list) return null;
      const purposeIds = Object.keys((list.body.purposes ?? {}) as object)
        .map(Number)
        .filter(Number.isInteger);
      return {
        policyVersion: list.tcfPolicyVersion,
        highestPurposeId: purposeIds.length > 0 ? Math.max(...purposeIds) : GVL_V3_PURPOSES,
      };
    },
    /**
     * The translations of a version in `language` (a BCP 47 tag: `fr-CA` reads `fr`); null when
     * the mirror holds none (English is the list itself: always null).
     */
    languageFile(db: Db, vendorListVersion: number, language: string): Promise<VendorListLanguageRow | null> {
      const primary = vendorListLanguage(language);
      if (!primary || primary === 'en') return Promise.resolve(null);
      return tcfRepo.languageFile(db, vendorListVersion, primary);
    },
    /**
     * The vendors' storage disclosures held for a version: `held` by vendor id (the checked files),
     * and `tried`, every vendor whose file was asked for (failures included).
     */
    async storageDisclosures(db: Db, vendorListVersion: number) {
      const rows = await tcfRepo.storageDisclosures(db, vendorListVersion);
      const held = new Map<number, Record<string, unknown>>();
      for (const row of rows) if (row.body) held.set(row.vendorId, row.body);
      return { held, tried: new Set(rows.map((r) => r.vendorId)) };
    },
    /** Recorded TC strings as tcf.js would serve them today (tc-string-served.ts). */
    servedTcStrings: createServedTcStrings({ vendorList }),
    /** When the mirror fetches next, its last success and its last error. */
    mirrorState(db: Db): Promise<MirrorStateRow | null> {
      return tcfRepo.state(db);
    },
    requestRefresh,
    /**
     * Asks the worker for the list (it fetches nothing while no channel uses TCF): called when the
     * list is wanted and none is held. Its own transaction, queued behind the caller's.
     */
    requestFetch,
    /** The ATP list mirror's job (worker.ts runs it every ATP_LIST_POLL_MS). */
    atpMirror,
    /** Google's ATP list as last mirrored, by provider id; null before the first successful fetch. */
    async atpProviders(db: Db): Promise<Map<number, AtpProvider> | null> {
      const providers = (await atpRepo.row(db))?.providers;
      return providers ? new Map(providers.map((p) => [p.id, p])) : null;
    },
    /** The ATP mirror's state: when it fetches next, its last success and error. */
    atpState: (db: Db): Promise<AtpListRow | null> => atpRepo.row(db),
    /**
     * Asks the worker for the ATP list now (a save that needs it, a test): the row's next fetch is
     * cleared, which the mirror runs even while no channel uses Additional Consent.
     */
    requestAtpFetch: (): Promise<void> =>
      deps.store.tx(async (tx) => {
        await atpRepo.save(tx, { nextFetchAt: null });
        await deps.jobs.enqueue(tx, {
          kind: ATP_LIST_JOB,
          payload: {},
          dedupeKey: `${ATP_LIST_JOB}:refresh`,
          maxAttempts: 3,
        });
      }),
  };
}

export type TcfService = ReturnType<typeof createTcfService>;
