import type { Tx } from '../../platform/db/store.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import type { DeliveryRow } from './webhooks.repo.ts';

/** The job kind that sends one attempt of a delivery (registered in worker.ts). */
export const ATTEMPT_JOB = 'webhooks.attempt';

export interface AttemptJobPayload {
  organizationId: string;
  deliveryId: string;
}

/**
 * One job carries a delivery through its whole retry schedule (each retry re-queues it with
 * RetryJobAt), so the job's own attempt limit only counts worker crashes and database errors.
 */
export const ATTEMPT_JOB_MAX_ATTEMPTS = 100;

/**
 * Enqueues the job that sends the delivery's next attempt at `runAt`, through the caller's transaction `tx`, so it
 * commits with the delivery row. The delivery row, not the job, is the truth: a
 * job finding its delivery no longer pending, or not yet due, does nothing.
 */
export async function scheduleAttempt(
  tx: Tx,
  jobs: Pick<JobQueue, 'enqueue'>,
  delivery: DeliveryRow,
  runAt: Date,
): Promise<void> {
  const payload: AttemptJobPayload = { organizationId: delivery.organizationId, deliveryId: delivery.id };
  await jobs.enqueue(tx, {
    kind: ATTEMPT_JOB,
    payload: { ...payload },
    runAt,
    organizationId: delivery.organizationId,
    maxAttempts: ATTEMPT_JOB_MAX_ATTEMPTS,
  });
}
