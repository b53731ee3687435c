import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { jobsRepo } from '../jobs/jobs.repo.ts';

/** How one webhook attempt ended: a 2xx, another HTTP status, or no response at all (timeout, refused, not sent). */
export type WebhookAttemptOutcome = 'success' | 'http_error' | 'no_response';

/** A consent decision's outcome: every optional purpose granted, all denied, or a mix. */
export type DecisionOutcome = 'accept_all' | 'reject_all' | 'custom';

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

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'consent_service_webhook_attempts_total',
    help: 'Webhook delivery attempts sent by this process, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'consent_service_rate_limit_rejections_total',
    help: 'Requests refused with 429 by this process, by limit.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'consent_service_decisions_total',
    help: 'Consent decisions recorded by this process (201 answers), by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const impressions = new Counter({
    name: 'consent_service_impressions_total',
    help: 'Banner impressions counted by this process.',
    registers: [registry],
  });
  const tcfFetchFailures = new Counter({
    name: 'consent_service_tcf_vendor_list_fetch_failures_total',
    help: "Failed fetches of the IAB Global Vendor List by this process (worker), by file: the list, a language file, or a vendor's storage disclosure.",
    labelNames: ['file'] as const,
    registers: [registry],
  });
  const tcfVersion = new Gauge({
    name: 'consent_service_tcf_vendor_list_version',
    help: 'The newest Global Vendor List version the mirror holds, as this process last saw it (worker).',
    registers: [registry],
  });
  const tcfAsks = new Counter({
    name: 'consent_service_tcf_vendor_list_asks_total',
    help: 'Asks for the IAB Global Vendor List while none is held (the vendor list route, TCF settings saved) by this process, by outcome: the fetch made due, or left to the back-off of failed fetches.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const tcfLoads = new Counter({
    name: 'consent_service_tcf_vendor_list_loads_total',
    help: 'Vendor list versions read from the database by this process (it keeps what it read in memory, within a byte budget).',
    registers: [registry],
  });
  const sdkCompressions = new Counter({
    name: 'consent_service_sdk_compressions_total',
    help: 'sdk.js bodies (a config in front of the bundle) compressed by this process, by encoding and quality (fast: brotli past its budget of best-quality compressions).',
    labelNames: ['encoding', 'quality'] as const,
    registers: [registry],
  });
  const sdkCacheBytes = new Gauge({
    name: 'consent_service_sdk_cache_bytes',
    help: 'Bytes of compressed sdk.js bodies this process keeps, all sites together (bounded by SDK_CACHE_MB).',
    registers: [registry],
  });
  const sdkCacheEvictions = new Counter({
    name: 'consent_service_sdk_cache_evictions_total',
    help: 'Compressed sdk.js bodies this process dropped to stay within SDK_CACHE_MB (least recently used first).',
    registers: [registry],
  });
  const retentionDeferred = new Counter({
    name: 'consent_service_retention_deferred_total',
    help: 'Steps of the evidence retention run this process left for the next run, by step and reason (lock_timeout: a lock held by another session, such as a long read; permission: a partition another database role owns).',
    labelNames: ['step', 'reason'] as const,
    registers: [registry],
  });
  const retentionWaiting = new Gauge({
    name: 'consent_service_retention_partitions_waiting',
    help: "Expired evidence partitions this process's last retention run could not drop (left for the next run).",
    registers: [registry],
  });
  const configCacheBytes = new Gauge({
    name: 'consent_service_config_cache_bytes',
    help: 'Bytes of config answers (one per site and region) this process keeps, all sites together (bounded by CONFIG_CACHE_MB).',
    registers: [registry],
  });
  const configCacheEvictions = new Counter({
    name: 'consent_service_config_cache_evictions_total',
    help: 'Config answers this process dropped to stay within CONFIG_CACHE_MB (least recently used first) or unused for CONFIG_CACHE_MAX_IDLE_SECONDS.',
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'consent_service_jobs',
    help: 'Jobs in the jobs table by kind and status (queued includes scheduled; failed until purged).',
    labelNames: ['kind', 'status'] as const,
    registers: [registry],
  });
  const oldestQueued = new Gauge({
    name: 'consent_service_jobs_oldest_queued_age_seconds',
    help: 'Seconds the oldest due, unclaimed job of each kind has waited past its run time.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const sealLag = new Gauge({
    name: 'consent_service_ledger_seal_lag_seconds',
    help: 'Age of the oldest evidence event not yet sealed into the ledger (0 when none waits).',
    registers: [registry],
  });
  const ledgerForks = new Gauge({
    name: 'consent_service_ledger_forks',
    help: 'Ledger logs halted because their database no longer extends a tree head this service signed (a failover that lost writes), not yet accepted by an operator; the log is not signed meanwhile.',
    registers: [registry],
  });
  const pool = new Gauge({
    name: 'consent_service_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting clients); absent on the embedded store.',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  // Registered only with a read URL, so a store without one shows neither series.
  const withReplica = store.replicaHealth ? [registry] : [];
  const replicaFallbacks = new Counter({
    name: 'consent_service_db_replica_fallbacks_total',
    help: 'Reads meant for DATABASE_READ_URL that this process sent to DATABASE_URL, by reason: the replica unavailable or refusing the credentials, or (exports) not a standby in recovery, or behind; absent without a read URL.',
    labelNames: ['reason'] as const,
    registers: withReplica,
  });
  const replicaUp = new Gauge({
    name: 'consent_service_db_replica_up',
    help: 'DATABASE_READ_URL as this process last found it: 1 serving its reads, 0 while DATABASE_URL serves them; absent without a read URL.',
    registers: withReplica,
  });
  const clockOffset = new Gauge({
    name: 'consent_service_clock_offset_seconds',
    help: "The database's clock minus this process's, as last measured (CLOCK_CHECK_SECONDS); decisions are refused past CLOCK_SKEW_MAX_SECONDS either way.",
    registers: [registry],
  });
  const clockSkewRefusals = new Counter({
    name: 'consent_service_clock_skew_refusals_total',
    help: "Decisions (and retention purges) this process refused because its clock was too far from the database's.",
    registers: [registry],
  });
  const heavyReadTurns = new Gauge({
    name: 'consent_service_heavy_read_turns',
    help: 'Turns of heavy reads (analytics slices, export batches, consent-state lookups) running and waiting in this process, all organizations together.',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  const databaseUp = new Gauge({
    name: 'consent_service_metrics_database_up',
    help: '1 when the database gauges (jobs, ledger) were read at this scrape, 0 when the query failed.',
    registers: [registry],
  });

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
    jobs.reset();
    oldestQueued.reset();
    const kinds = new Set(jobRows.map((r) => r.kind));
    for (const kind of kinds) {
      for (const status of JOB_STATUSES) jobs.set({ kind, status }, 0);
      oldestQueued.set({ kind }, 0);
    }
    for (const row of jobRows) {
      jobs.set({ kind: row.kind, status: row.status }, Number(row.count));
      if (row.oldest !== null) oldestQueued.set({ kind: row.kind }, Math.max(0, Number(row.oldest)));
    }
    sealLag.set(Math.max(0, Number(lag ?? 0)));
    ledgerForks.set(forks);
  }

  return {
    registry,
    contentType: registry.contentType,

    observeRequest(labels: { method: string; route: string; status: number }, seconds: number) {
      const values = { method: labels.method, route: labels.route, status: String(labels.status) };
      httpRequests.inc(values);
      httpDuration.observe(values, seconds);
    },
    webhookAttempt(outcome: WebhookAttemptOutcome) {
      webhookAttempts.inc({ outcome });
    },
    rateLimitRejected(limit: RateLimitKind) {
      rateLimitRejections.inc({ limit });
    },
    decisionRecorded(outcome: DecisionOutcome) {
      decisions.inc({ outcome });
    },
    impressionCounted() {
      impressions.inc();
    },
    clockOffset(offsetMs: number) {
      clockOffset.set(offsetMs / 1000);
    },
    clockSkewRefused() {
      clockSkewRefusals.inc();
    },
    tcfVendorListFetchFailed(file: 'vendor_list' | 'language' | 'storage_disclosure') {
      tcfFetchFailures.inc({ file });
    },
    tcfVendorListAsked(outcome: 'due' | 'backing_off') {
      tcfAsks.inc({ outcome });
    },
    tcfVendorListLoaded() {
      tcfLoads.inc();
    },
    tcfVendorListVersion(version: number) {
      tcfVersion.set(version);
    },
    /** The evidence retention run's observer (evidence/retention.ts). */
    retention: {
      deferred(step: RetentionStep, reason: RetentionDeferReason) {
        retentionDeferred.inc({ step, reason });
      },
      partitionsWaiting(count: number) {
        retentionWaiting.set(count);
      },
    },
    /** The sdk.js cache's observer (sites/sdk-scripts.ts). */
    sdkScripts: {
      compressed(encoding: 'br' | 'gzip', quality: 'best' | 'fast') {
        sdkCompressions.inc({ encoding, quality });
      },
      cacheBytes(bytes: number) {
        sdkCacheBytes.set(bytes);
      },
      evicted() {
        sdkCacheEvictions.inc();
      },
    },

    /** The config answers' cache's observer (sites/regional-answers.ts). */
    configCache: {
      cacheBytes(bytes: number) {
        configCacheBytes.set(bytes);
      },
      evicted() {
        configCacheEvictions.inc();
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
        databaseUp.set(1);
      } catch (error) {
        databaseUp.set(0);
        onDatabaseError(error);
      }
      const replica = store.replicaHealth;
      if (replica) {
        // Counted by the store's replica pool (platform/db/read-replica.ts); copied at each scrape.
        replicaFallbacks.reset();
        for (const [reason, count] of Object.entries(replica.fallbacks()))
          replicaFallbacks.inc({ reason }, count);
        replicaUp.set(replica.state() === 'ok' ? 1 : 0);
      }
      pool.reset();
      if (store.pool) {
        pool.set({ state: 'total' }, store.pool.totalCount);
        pool.set({ state: 'idle' }, store.pool.idleCount);
        pool.set({ state: 'waiting' }, store.pool.waitingCount);
      }
      const turns = store.heavyReads.counts();
      heavyReadTurns.set({ state: 'running' }, turns.running);
      heavyReadTurns.set({ state: 'waiting' }, turns.waiting);
      return registry.metrics();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
