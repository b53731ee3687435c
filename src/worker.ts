import type { FastifyBaseLogger } from 'fastify';
import { EXPORT_JOB, EXPORT_LEASE_MS, EXPORT_TASK_MS } from './modules/exports/export-job.ts';
import { SCAN_JOB, SCAN_LEASE_MS } from './modules/scans/scan-job.ts';
import {
  ATP_LIST_JOB,
  ATP_LIST_POLL_MS,
  VENDOR_LIST_JOB,
  VENDOR_LIST_POLL_MS,
} from './modules/tcf/tcf.service.ts';
import { ATTEMPT_JOB } from './modules/webhooks/delivery-jobs.ts';
import type { Clock } from './platform/clock.ts';
import type { Store } from './platform/db/store.ts';
import { purgeExpiredIdempotencyKeys } from './platform/idempotency/idempotency.purge.ts';
import { createJobRunner, type JobRunner } from './platform/jobs/job-runner.ts';
import type { Services } from './services.ts';

/**
 * Slots of one worker per job kind, and how many of them one organization may hold. Every kind not
 * named here (sealing, purges, expiries: system tasks with one pending run each) has one slot of
 * its own. A kind's jobs never take another kind's slots, so sealing never waits behind scans or
 * deliveries; within a kind the runner gives a free slot to the organization running the fewest.
 * More throughput is more worker processes.
 */
export const JOB_SLOTS = {
  /** Mostly waiting on receivers: an attempt holds its slot 15 s at most (delivery-worker.ts). */
  webhookAttempts: { concurrency: 8, perOrganization: 4 },
  /** A Chromium each, for up to SCAN_TIMEOUT_SECONDS: a worker runs one scan of an organization at a time. */
  scans: { concurrency: 2, perOrganization: 1 },
  /** Each streams the evidence table to a file: a worker runs one export of an organization at a time. */
  exports: { concurrency: 2, perOrganization: 1 },
} as const;

/**
 * The worker role: one job runner with every module's job kinds registered. Modules add their
 * kinds in `registerJobs` below (exports, webhook deliveries, retention purges, ledger sealing, …).
 */
export function createWorker(deps: {
  store: Store;
  clock: Clock;
  services: Services;
  log: FastifyBaseLogger;
  concurrency?: number;
  pollMs?: number;
}): JobRunner {
  const runner = createJobRunner({
    store: deps.store,
    clock: deps.clock,
    queue: deps.services.jobs,
    log: deps.log,
    concurrency: deps.concurrency,
    pollMs: deps.pollMs,
  });
  registerJobs(runner, deps);
  // The IAB Global Vendor List mirror: due at once on a fresh store (the first run loads the list),
  // then when the fetched list goes stale (its max-age) or after a failure's backoff. Failures of
  // the host are handled (and logged) by the mirror; only database errors reach the runner's retries.
  runner.every(VENDOR_LIST_JOB, VENDOR_LIST_POLL_MS, async () => {
    await deps.services.tcf.mirror.run(deps.log);
  });
  // Google's ATP list (Additional Consent): the same way, only while a channel uses it.
  runner.every(ATP_LIST_JOB, ATP_LIST_POLL_MS, async () => {
    await deps.services.tcf.atpMirror.run(deps.log);
  });
  return runner;
}

function registerJobs(
  runner: JobRunner,
  { store, clock, services, log }: { store: Store; clock: Clock; services: Services; log: FastifyBaseLogger },
): void {
  // Each module registers its job kinds here.
  // Retention (test evidence after a day, live after retentionDays): hourly, in bounded batches
  // (evidence/retention.ts). A step it leaves for the next run is counted in /metrics and logged here.
  runner.every('evidence.retention', 3600_000, async () => {
    const run = await services.evidence.purgeExpired();
    for (const left of run.deferred) {
      const verb = { create_partition: 'make', drop_partition: 'drop', purge_rows: 'purge the events of' }[
        left.step
      ];
      log.warn(
        { step: left.step, reason: left.reason, target: left.what, sqlstate: left.code },
        left.reason === 'permission'
          ? `retention: cannot ${verb} ${left.what}: another database role owns it; make the service's role its owner (ALTER TABLE ... OWNER TO ...)`
          : `retention: could not ${verb} ${left.what} now (${left.reason}); the next run tries again`,
      );
    }
  });
  // Consent state of events older than its table: resumable batches, 50 s per minute.
  runner.every('evidence.consent-state-backfill', 60_000, async () => {
    await services.evidence.consentState.backfill({ budgetMs: 50_000 });
  });
  // Test-environment analytics go with test evidence after a day; live ones are kept.
  runner.every('analytics.test-purge', 3600_000, async () => {
    await services.analytics.purgeTest();
  });
  // Idempotency records are kept 24 hours; expired ones go in bounded batches.
  // Handoff tokens never redeemed, and links no decision can follow any longer.
  runner.every('handoffs.purge', 3600_000, async () => {
    while ((await services.handoffs.purge(1000)) === 1000) {}
  });
  runner.every('idempotency.purge', 3600_000, async () => {
    while ((await purgeExpiredIdempotencyKeys(store, clock, 1000)) === 1000) {}
  });
  // Ledger: append new evidence and sign a tree head; every LEDGER_SEAL_SECONDS, each log under its own lock.
  runner.every('ledger.seal', services.ledger.sealIntervalMs, async () => {
    const { forks } = await services.ledger.sealer.sealAll();
    // A log whose database no longer extends a head it signed is not signed again: say so, once.
    for (const fork of forks)
      log.error(
        { ...fork, detectedAt: fork.detectedAt.toISOString() },
        `ledger fork: the database's log ${fork.databaseTreeSize < fork.signedTreeSize ? `has ${fork.databaseTreeSize} leaves, fewer than` : 'no longer extends'} tree head ${fork.signedTreeSize} signed before (a failover to a standby that missed writes, or a restored backup); the log is not signed until an operator accepts the fork (docs/guides/operate.md, "Ledger forks")`,
      );
  });
  const webhooks = services.webhooks.worker;
  // The lease outlasts an attempt's 10 s timeout, so no second worker takes a job mid-send.
  runner.register(ATTEMPT_JOB, (payload) => webhooks.attempt(payload), {
    ...JOB_SLOTS.webhookAttempts,
    leaseMs: 60_000,
    onExhausted: (tx, job, error) => webhooks.onExhausted(tx, job, error),
  });
  // Exports: the lease is renewed after every batch; spent attempts fail the export.
  runner.register(
    EXPORT_JOB,
    async (payload, { heartbeat }) => void (await services.exports.run(payload, heartbeat)),
    {
      ...JOB_SLOTS.exports,
      leaseMs: EXPORT_LEASE_MS,
      onExhausted: (tx, job) => services.exports.onExhausted(tx, job),
    },
  );
  // Tracker scans: the lease is renewed every 30 s while the browser works; the
  // worker stopping aborts the scan (the browser is killed) and it runs again later.
  runner.register(SCAN_JOB, async (payload, context) => void (await services.scans.run(payload, context)), {
    ...JOB_SLOTS.scans,
    leaseMs: SCAN_LEASE_MS,
    onExhausted: (tx, job) => services.scans.onExhausted(tx, job),
  });
  runner.every('exports.expire', EXPORT_TASK_MS, async () => {
    await services.exports.expireDue();
  });
}
