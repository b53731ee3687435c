import { ATTEMPT_JOB } from '../../src/modules/webhooks/delivery-jobs.ts';
import { createJobRunner } from '../../src/platform/jobs/job-runner.ts';
import type { TestApp } from '../helpers/app.ts';

/**
 * A job runner for an app's webhook attempts only. The app's full worker would also run other
 * modules' jobs (evidence retention, say) at this file's advanced clock, which on a shared
 * PostgreSQL would act on other test files' data.
 */
export function webhookWorker(t: TestApp) {
  const services = t.app.services;
  const runner = createJobRunner({ store: t.store, clock: t.clock, queue: services.jobs, log: t.app.log });
  runner.register(ATTEMPT_JOB, (payload) => services.webhooks.worker.attempt(payload), {
    leaseMs: 60_000,
    onExhausted: (tx, job, error) => services.webhooks.worker.onExhausted(tx, job, error),
  });
  return runner;
}
