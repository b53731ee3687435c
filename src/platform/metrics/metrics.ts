import { collectDefaultMetrics, Registry } from 'prom-client';
import type { DecisionOutcome } from '../../shared/decision-outcome.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { jobsRepo } from '../jobs/jobs.repo.ts';
import { processInstruments, storeInstruments } from './instruments.ts';

/** How one webhook attempt ended: a 2xx, another HTTP status, or no response at all (timeout, refused, not sent). */
export type WebhookAttemptOutcome = 'success' | 'http_error' | 'no_response';

/** A consent decision's outcome: every optional purpose granted, all denied, or a mix. */
export type { DecisionOutcome };

/** Which limit refused a request; never the key, site or address it counted. */
export type RateLimitKind = 'api' | 'organization' | 'public' | 'sign_in';

/** A step of the evidence retention run, and why a run left it for the next one (evidence/retention-locks.ts). */
export type RetentionStep = 'create_partition' | 'drop_partition' | 'purge_rows';
export type RetentionDeferReason = 'lock_timeout' | 'statement_timeout' | 'permission' | 'error';

const JOB_STATUSES = ['queued', 'running', 'failed'] as const;

/**
 * The Prometheus metrics of one process (one registry per services instance: tests build many apps
 * in one process, where prom-client's global registry would collide). Labels are bounded by
 * construction: route templates, methods, statuses, job kinds, outcomes. Never organization ids,
 * key ids, subject ids or secrets.
 */
export function createMetrics(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const m = { ...processInstruments(registry), ...storeInstruments(registry, Boolean(store.replicaHealth)) };

  /**
   * The ledger's seal lag, read by the ledger module (which owns ledger_pending); set by the wiring
   * once the ledger service exists (`readSealLagWith`).
   */
  let readSealLag: ((now: Date) => Promise<number | null>) | null = null;
  /** The count of open ledger forks, read by the ledger module (which owns ledger_forks). */
  let readLedgerForks: (() => Promise<number>) | null = null;

  /** Reads the database gauges: one query for jobs, one for the ledger. Called at scrape time. */
  async function refreshDatabaseGauges(): Promise<void> {
    const now = clock.now();
    const jobRows = await jobsRepo.gauges(store.db, now);
    const lag = readSealLag ? await readSealLag(now) : null;
    const forks = readLedgerForks ? await readLedgerForks() : 0;
    m.jobs.reset();
    m.oldestQueued.reset();
    const kinds = new Set(jobRows.map((r) => r.kind));
    for (const kind of kinds) {
      for (const status of JOB_STATUSES) m.jobs.set({ kind, status }, 0);
      m.oldestQueued.set({ kind }, 0);
    }
    for (const row of jobRows) {
      m.jobs.set({ kind: row.kind, status: row.status }, Number(row.count));
      if (row.oldest !== null) m.oldestQueued.set({ kind: row.kind }, Math.max(0, Number(row.oldest)));
    }
    m.sealLag.set(Math.max(0, Number(lag ?? 0)));
    m.ledgerForks.set(forks);
  }

  return {
    registry,
    contentType: registry.contentType,

    observeRequest(labels: { method: string; route: string; status: number }, seconds: number) {
      const values = { method: labels.method, route: labels.route, status: String(labels.status) };
      m.httpRequests.inc(values);
      m.httpDuration.observe(values, seconds);
    },
    webhookAttempt(outcome: WebhookAttemptOutcome) {
      m.webhookAttempts.inc({ outcome });
    },
    rateLimitRejected(limit: RateLimitKind) {
      m.rateLimitRejections.inc({ limit });
    },
    decisionRecorded(outcome: DecisionOutcome) {
      m.decisions.inc({ outcome });
    },
    impressionCounted() {
      m.impressions.inc();
    },
    clockOffset(offsetMs: number) {
      m.clockOffset.set(offsetMs / 1000);
    },
    clockSkewRefused() {
      m.clockSkewRefusals.inc();
    },
    tcfVendorListFetchFailed(file: 'vendor_list' | 'language' | 'storage_disclosure') {
      m.tcfFetchFailures.inc({ file });
    },
    tcfVendorListAsked(outcome: 'due' | 'backing_off') {
      m.tcfAsks.inc({ outcome });
    },
    tcfVendorListLoaded() {
      m.tcfLoads.inc();
    },
    tcfVendorListVersion(version: number) {
      m.tcfVersion.set(version);
    },
    /** The evidence retention run's observer (evidence/retention.ts). */
    retention: {
      deferred(step: RetentionStep, reason: RetentionDeferReason) {
        m.retentionDeferred.inc({ step, reason });
      },
      partitionsWaiting(count: number) {
        m.retentionWaiting.set(count);
      },
    },
    /** The sdk.js cache's observer (sites/sdk-scripts.ts). */
    sdkScripts: {
      compressed(encoding: 'br' | 'gzip', quality: 'best' | 'fast') {
        m.sdkCompressions.inc({ encoding, quality });
      },
      cacheBytes(bytes: number) {
        m.sdkCacheBytes.set(bytes);
      },
      evicted() {
        m.sdkCacheEvictions.inc();
      },
    },

    /** The config answers' cache's observer (sites/regional-answers.ts). */
    configCache: {
      cacheBytes(bytes: number) {
        m.configCacheBytes.set(bytes);
      },
      evicted() {
        m.configCacheEvictions.inc();
      },
    },

    /** Where the seal lag gauge is read from (the ledger service); the gauge reads 0 until set. */
    readSealLagWith(read: (now: Date) => Promise<number | null>) {
      readSealLag = read;
    },
    /** Where the ledger forks gauge is read from (the ledger service); 0 until set. */
    readLedgerForksWith(read: () => Promise<number>) {
      readLedgerForks = read;
    },

    /** The text exposition, with database gauges read now; a failing database only blanks those. */
    async scrape(onDatabaseError: (error: unknown) => void): Promise<string> {
      try {
        await refreshDatabaseGauges();
        m.databaseUp.set(1);
      } catch (error) {
        m.databaseUp.set(0);
        onDatabaseError(error);
      }
      const replica = store.replicaHealth;
      if (replica) {
        // Counted by the store's replica pool (platform/db/read-replica.ts); copied at each scrape.
        m.replicaFallbacks.reset();
        for (const [reason, count] of Object.entries(replica.fallbacks()))
          m.replicaFallbacks.inc({ reason }, count);
        m.replicaUp.set(replica.state() === 'ok' ? 1 : 0);
      }
      m.pool.reset();
      if (store.pool) {
        m.pool.set({ state: 'total' }, store.pool.totalCount);
        m.pool.set({ state: 'idle' }, store.pool.idleCount);
        m.pool.set({ state: 'waiting' }, store.pool.waitingCount);
      }
      const turns = store.heavyReads.counts();
      m.heavyReadTurns.set({ state: 'running' }, turns.running);
      m.heavyReadTurns.set({ state: 'waiting' }, turns.waiting);
      return registry.metrics();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
