import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The instruments of one process's metrics (metrics.ts), in two groups: what this process does
 * (requests, decisions, caches, fetches), counted as it happens; and what the database and the
 * store hold, read at each scrape. Names, help and labels are the exposition's contract
 * (docs/guides/operate.md lists them).
 */
export function processInstruments(registry: Registry) {
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
  return {
    httpRequests,
    httpDuration,
    webhookAttempts,
    rateLimitRejections,
    decisions,
    impressions,
    tcfFetchFailures,
    tcfVersion,
    tcfAsks,
    tcfLoads,
    sdkCompressions,
    sdkCacheBytes,
    sdkCacheEvictions,
    retentionDeferred,
    retentionWaiting,
    configCacheBytes,
    configCacheEvictions,
  };
}

/** The gauges read at scrape time; the replica's only when the store has one. */
export function storeInstruments(registry: Registry, hasReplica: boolean) {
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
  const withReplica = hasReplica ? [registry] : [];
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

  return {
    jobs,
    oldestQueued,
    sealLag,
    ledgerForks,
    pool,
    replicaFallbacks,
    replicaUp,
    clockOffset,
    clockSkewRefusals,
    heavyReadTurns,
    databaseUp,
  };
}
