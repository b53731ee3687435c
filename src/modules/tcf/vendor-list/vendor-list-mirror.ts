import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../platform/clock.ts';
import { describeError } from '../../../platform/db/pg-errors.ts';
import type { Db, Store, Tx } from '../../../platform/db/store.ts';
import {
  mirrorStorageDisclosures,
  type StorageDisclosureMirrorDeps,
} from '../storage-disclosure/storage-disclosure-mirror.ts';
import { type MirrorStateRow, tcfRepo } from '../tcf.repo.ts';
import { checkLanguageFile, checkVendorList, isSampleVendorList } from './vendor-list-shape.ts';
import { describeSource, readSourceFile, SourceError } from './vendor-list-source.ts';

/**
 * How long a fetched list is fresh: the host's `max-age`, kept between a floor (a host saying 0
 * would have every worker fetch every minute) and a ceiling (a host saying a year would hide new
 * versions, which IAB publishes weekly); an hour when the host says nothing (and for `file:`).
 */
export const FRESHNESS = { floorSeconds: 60, ceilingSeconds: 7 * 86_400, defaultSeconds: 3600 };

/** After the n-th failure in a row, wait 1, 2, 4 … minutes, at most an hour, before the next try. */
export const retryDelaySeconds = (failures: number) => Math.min(60 * 2 ** Math.max(0, failures - 1), 3600);

/** At most this many language files per run: a bound on what a run may fetch, whatever channels use. */
const MAX_LANGUAGES_PER_RUN = 50;

export type FetchedFile = 'vendor_list' | 'language';

export interface VendorListMirrorDeps {
  store: Store;
  clock: Clock;
  /** TCF_GVL_URL. */
  baseUrl: string;
  /** TCF_GVL_FETCH_TIMEOUT_SECONDS, in ms (default FETCH_TIMEOUT_MS). */
  fetchTimeoutMs?: number;
  /**
   * Whether a channel uses TCF. While none does, a run fetches only when the list was asked for
   * (`requestFetch`: the vendor list route, or TCF settings saved before any list is held).
   */
  tcfInUse?: (db: Db) => Promise<boolean>;
  /** The languages TCF channels are shown in (any BCP 47 tag; the mirror keeps the primary subtag). */
  languagesInUse: (db: Db) => Promise<string[]>;
  /** Called in the transaction that stores a version newer than every other (channels adopt it). */
  onNewVendorList?: (tx: Tx, vendorListVersion: number) => Promise<void>;
  /** Metrics: a failed fetch, and the newest version held. */
  onFetchFailure?: (file: FetchedFile) => void;
  onVersion?: (vendorListVersion: number) => void;
  /** The vendors' storage disclosures, fetched after the list (storage-disclosure-mirror.ts). */
  storageDisclosures?: Omit<StorageDisclosureMirrorDeps, 'store'>;
}

type Log = Pick<FastifyBaseLogger, 'warn' | 'info'>;

/** What a run did (for the job's caller and tests). */
export type MirrorRunOutcome = 'not_due' | 'not_in_use' | 'fetched' | 'failed';

/** The language file a tag is served from: its primary subtag (`fr-CA` → `fr`), lowercased. */
export function vendorListLanguage(tag: string): string | null {
  const primary = /^([a-z]{2,3})(?:[-_]|$)/i.exec(tag.trim())?.[1];
  return primary ? primary.toLowerCase() : null;
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);
/** Seconds a fetched list stays fresh: the host's max-age within the FRESHNESS bounds. */
const freshFor = (maxAge: number | null) =>
  Math.min(Math.max(maxAge ?? FRESHNESS.defaultSeconds, FRESHNESS.floorSeconds), FRESHNESS.ceilingSeconds);

/** Stores the list; true when it is a version never seen and newer than every other. */
async function storeList(
  deps: VendorListMirrorDeps,
  list: ReturnType<typeof checkVendorList>,
  now: Date,
): Promise<boolean> {
  return deps.store.tx(async (tx) => {
    const inserted = await tcfRepo.insertVersion(tx, { ...list, fetchedAt: now });
    if (!inserted) return false;
    const newest = (await tcfRepo.latest(tx))?.vendorListVersion === list.vendorListVersion;
    if (newest && deps.onNewVendorList) await deps.onNewVendorList(tx, list.vendorListVersion);
    return newest;
  });
}

/**
 * Fetches and checks `vendor-list.json`. Whatever goes wrong here is the host's doing (a parser
 * or a check that throws something else included), so it is a SourceError: counted and stored
 * in the mirror state like any failed fetch, never a job failure that nothing counts.
 */
async function fetchList(deps: VendorListMirrorDeps) {
  try {
    const file = await readSourceFile(deps.baseUrl, 'vendor-list.json', deps.fetchTimeoutMs);
    return { file, list: checkVendorList(file.body) };
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`vendor-list.json could not be read (${describeError(error)})`);
  }
}

/**
 * The Global Vendor List mirror (docs/guides/tcf.md): fetches `vendor-list.json` when the stored
 * one is stale, stores every version once, then the language files TCF channels need. A failure
 * of any kind leaves what is stored as it was: the routes keep serving the last good version.
 */
export function createVendorListMirror(deps: VendorListMirrorDeps) {
  const { store, clock, baseUrl } = deps;
  const source = describeSource(baseUrl);

  /**
   * Languages tried for a version by this process since the list was last due: a channel that
   * starts using a language gets it at the next poll, while one IAB has no file for is asked again
   * only when the list is (not every minute).
   */
  const tried = new Set<string>();

  /** Fetches the missing language files of `version`; returns the failures' messages. */
  async function fetchLanguages(
    version: number,
    now: Date,
    log: Log,
    onlyUntried = false,
  ): Promise<string[]> {
    const wanted = new Set<string>();
    for (const tag of await deps.languagesInUse(store.db)) {
      const language = vendorListLanguage(tag);
      // English is the list itself.
      if (language && language !== 'en') wanted.add(language);
    }
    const held = new Set(await tcfRepo.languagesOf(store.db, version));
    const missing = [...wanted]
      .filter((l) => !held.has(l) && !(onlyUntried && tried.has(`${version}:${l}`)))
      .sort()
      .slice(0, MAX_LANGUAGES_PER_RUN);
    const errors: string[] = [];
    for (const language of missing) {
      const name = `purposes-${language}.json`;
      tried.add(`${version}:${language}`);
      try {
        const body = checkLanguageFile((await readSourceFile(baseUrl, name, deps.fetchTimeoutMs)).body, name);
        await store.tx((tx) =>
          tcfRepo.insertLanguageFile(tx, { vendorListVersion: version, language, body, fetchedAt: now }),
        );
      } catch (error) {
        const message = error instanceof SourceError ? error.message : describeError(error);
        errors.push(message);
        deps.onFetchFailure?.('language');
        // The banner falls back to English for this language; the next run tries again.
        log.warn({ source, language, err: message }, 'TCF vendor list language file not fetched');
      }
    }
    return errors;
  }

  /** The storage disclosures of `version`'s vendors in use; failures are the vendors' own, logged there. */
  const disclosures = (version: number, now: Date, log: Log, retryFailed: boolean) =>
    deps.storageDisclosures
      ? mirrorStorageDisclosures({ ...deps.storageDisclosures, store }, version, now, log, retryFailed)
      : Promise.resolve(0);

  return {
    source,

    /** One run of the job: fetch when due and a channel uses TCF (or the list was asked for), else nothing. */
    async run(log: Log): Promise<MirrorRunOutcome> {
      const now = clock.now();
      const state = await tcfRepo.state(store.db);
      // Asked for (requestFetch, requestRefresh clear the next fetch, creating the row), and still
      // tried until a fetch succeeds. Otherwise, with no TCF channel, nothing is fetched or logged.
      const asked = state !== null && (state.nextFetchAt === null || state.lastSuccessAt === null);
      if (!asked && deps.tcfInUse && !(await deps.tcfInUse(store.db))) return 'not_in_use';
      if (state?.nextFetchAt && state.nextFetchAt.getTime() > now.getTime()) {
        const latest = await tcfRepo.latestVersion(store.db);
        if (latest !== null) {
          deps.onVersion?.(latest);
          // A language a channel started using since: fetched now, not when the list is next due.
          await fetchLanguages(latest, now, log, true);
          // A vendor a channel started using since: its disclosure now, not at the next due run.
          await disclosures(latest, now, log, false);
        }
        return 'not_due';
      }
      tried.clear();
      let next: Omit<MirrorStateRow, 'id'>;
      try {
        const { file, list } = await fetchList(deps);
        const newest = await tcfRepo.latestVersion(store.db);
        if (newest !== null && list.vendorListVersion < newest) {
          // A host (or a cache before it) serving an old copy: channels stay on the newer list.
          throw new SourceError(
            `vendor-list.json: vendorListVersion ${list.vendorListVersion} is older than ${newest}, the newest held`,
          );
        }
        if (await storeList(deps, list, now)) {
          log.info(
            { source, vendorListVersion: list.vendorListVersion },
            'TCF vendor list: new version stored',
          );
          if (isSampleVendorList(list.body)) {
            log.warn(
              { source, vendorListVersion: list.vendorListVersion },
              'TCF vendor list: this is the SAMPLE list (no real vendors), for test channels only; live channels refuse TCF settings until IAB’s list is fetched',
            );
          }
        }
        const latest = (await tcfRepo.latest(store.db))!;
        deps.onVersion?.(latest.vendorListVersion);
        const languageErrors = await fetchLanguages(latest.vendorListVersion, now, log);
        await disclosures(latest.vendorListVersion, now, log, true);
        next = {
          nextFetchAt: later(now, freshFor(file.maxAgeSeconds)),
          lastAttemptAt: now,
          lastSuccessAt: now,
          lastError: languageErrors.length > 0 ? languageErrors.join('; ').slice(0, 1000) : null,
          consecutiveFailures: 0,
        };
      } catch (error) {
        // A database failure is the job's to retry; everything the host did wrong is handled here.
        if (!(error instanceof SourceError)) throw error;
        const failures = (state?.consecutiveFailures ?? 0) + 1;
        deps.onFetchFailure?.('vendor_list');
        const latest = await tcfRepo.latest(store.db);
        if (latest) deps.onVersion?.(latest.vendorListVersion);
        log.warn(
          {
            source,
            err: error.message,
            consecutiveFailures: failures,
            servingVersion: latest?.vendorListVersion ?? null,
          },
          'TCF vendor list fetch failed; keeping the last good version',
        );
        next = {
          nextFetchAt: later(now, retryDelaySeconds(failures)),
          lastAttemptAt: now,
          lastSuccessAt: state?.lastSuccessAt ?? null,
          lastError: error.message.slice(0, 1000),
          consecutiveFailures: failures,
        };
      }
      await store.tx((tx) => tcfRepo.saveState(tx, next));
      return next.consecutiveFailures > 0 ? 'failed' : 'fetched';
    },
  };
}

export type VendorListMirror = ReturnType<typeof createVendorListMirror>;
