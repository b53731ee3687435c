import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../platform/clock.ts';
import type { Db, Store, Tx } from '../../../platform/db/store.ts';
import { tcfAtpList } from '../tcf.tables.ts';
import { type AtpProvider, checkAtpList } from './atp-list-shape.ts';
import { type AtpSourceOptions, describeAtpSource, readAtpSource } from './atp-list-source.ts';
import { FRESHNESS, retryDelaySeconds } from './vendor-list-mirror.ts';
import { SourceError } from './vendor-list-source.ts';

export type AtpListRow = typeof tcfAtpList.$inferSelect;
const ROW_ID = 1;

/** All SQL of the ATP list mirror (one row, tcf.tables.ts). */
export const atpRepo = {
  async row(db: Db): Promise<AtpListRow | null> {
    const [row] = await db.select().from(tcfAtpList).where(eq(tcfAtpList.id, ROW_ID)).limit(1);
    return row ?? null;
  },
  async save(tx: Tx, values: Partial<Omit<AtpListRow, 'id'>>): Promise<void> {
    await tx
      .insert(tcfAtpList)
      .values({ id: ROW_ID, ...values })
      .onConflictDoUpdate({ target: tcfAtpList.id, set: values });
  },
};

export interface AtpListMirrorDeps extends AtpSourceOptions {
  store: Store;
  clock: Clock;
  /** GOOGLE_ATP_URL. */
  url: string;
  /** Whether an active channel uses googleAdditionalConsent: while none does, nothing is fetched. */
  inUse: (db: Db) => Promise<boolean>;
  onFetchFailure?: () => void;
}

type Log = Pick<FastifyBaseLogger, 'warn' | 'info'>;

export type AtpRunOutcome = 'not_due' | 'not_in_use' | 'fetched' | 'failed';

/**
 * The mirror of Google's ATP list (docs/guides/tcf.md, "Google Additional Consent"): fetched only
 * on demand (a channel uses Additional Consent, or a save asked for the list), then again when the
 * host's max-age runs out (kept within the vendor list's bounds), backing off after failures. A
 * failure of any kind keeps the last good list.
 */
export function createAtpListMirror(deps: AtpListMirrorDeps) {
  const source = describeAtpSource(deps.url);
  const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);
  return {
    source,
    async run(log: Log): Promise<AtpRunOutcome> {
      const now = deps.clock.now();
      const state = await atpRepo.row(deps.store.db);
      // Asked for (a row whose next fetch is cleared), and retried until a fetch succeeds.
      const asked = state !== null && (state.nextFetchAt === null || state.lastSuccessAt === null);
      if (!asked && !(await deps.inUse(deps.store.db))) return 'not_in_use';
      if (state?.nextFetchAt && state.nextFetchAt.getTime() > now.getTime()) return 'not_due';
      let providers: AtpProvider[];
      let maxAge: number | null;
      try {
        const file = await readAtpSource(deps.url, deps);
        providers = checkAtpList(file.text);
        maxAge = file.maxAgeSeconds;
      } catch (error) {
        // A database failure is the job's to retry; whatever the host did wrong is handled here.
        const message =
          error instanceof SourceError ? error.message : `could not be read (${(error as Error).message})`;
        const failures = (state?.consecutiveFailures ?? 0) + 1;
        deps.onFetchFailure?.();
        log.warn(
          { source, err: message, consecutiveFailures: failures, holding: state?.providers?.length ?? 0 },
          'Google ATP list fetch failed; keeping the last good list',
        );
        await deps.store.tx((tx) =>
          atpRepo.save(tx, {
            nextFetchAt: later(now, retryDelaySeconds(failures)),
            lastAttemptAt: now,
            lastError: message.slice(0, 1000),
            consecutiveFailures: failures,
          }),
        );
        return 'failed';
      }
      const fresh = Math.min(
        Math.max(maxAge ?? FRESHNESS.defaultSeconds, FRESHNESS.floorSeconds),
        FRESHNESS.ceilingSeconds,
      );
      await deps.store.tx((tx) =>
        atpRepo.save(tx, {
          providers,
          fetchedAt: now,
          nextFetchAt: later(now, fresh),
          lastAttemptAt: now,
          lastSuccessAt: now,
          lastError: null,
          consecutiveFailures: 0,
        }),
      );
      log.info({ source, providers: providers.length }, 'Google ATP list stored');
      return 'fetched';
    },
  };
}
