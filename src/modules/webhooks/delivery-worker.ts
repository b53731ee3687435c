import type { Clock } from '../../platform/clock.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import { DestinationRefused, type Lookup, vetDestination } from '../../platform/http/address-guard.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { RetryJobAt } from '../../platform/jobs/job-runner.ts';
import type { JobRow } from '../../platform/jobs/jobs.repo.ts';
import type { WebhookAttemptOutcome } from '../../platform/metrics/metrics.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { recordAttempt } from './attempt-recording.ts';
import type { AttemptJobPayload } from './delivery-jobs.ts';
import type { SecretBox } from './webhook-secrets.ts';
import { signatureHeader } from './webhook-secrets.ts';
import { type SendResult, sendWebhook } from './webhook-sender.ts';
import {
  type DeliveryRow,
  type DestinationRow,
  deliveriesRepo,
  destinationsRepo,
  eventsRepo,
} from './webhooks.repo.ts';

/**
 * The whole exchange of one attempt, connecting (at most CONNECT_TIMEOUT_MS) included; resolving
 * the host before it takes at most LOOKUP_TIMEOUT_MS. So an attempt holds a worker's slot for at
 * most 15 s, whatever the receiver does (drops packets, accepts and never answers, trickles).
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface DeliveryWorkerDeps {
  store: Store;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  secretBox: () => Promise<SecretBox>;
  retryScheduleSeconds: number[];
  allowPrivateTargets: boolean;
  lookup?: Lookup;
  timeoutMs?: number;
  /** Told how each sent attempt ended (metrics). */
  onAttempt?: (outcome: WebhookAttemptOutcome) => void;
}

function outcomeOf(result: SendResult): WebhookAttemptOutcome {
  if (result.status === null) return 'no_response';
  return result.status >= 200 && result.status < 300 ? 'success' : 'http_error';
}

/** Signs and sends one attempt; a vanished event or a refused destination is a failed result, not an error. */
async function send(
  deps: DeliveryWorkerDeps,
  delivery: DeliveryRow,
  destination: DestinationRow,
): Promise<SendResult> {
  const event = await eventsRepo.find(deps.store.db, delivery.organizationId, delivery.eventId);
  if (!event) return { status: null, retryAfter: null, error: 'event no longer exists', durationMs: 0 };
  let vetted: Awaited<ReturnType<typeof vetDestination>>;
  try {
    vetted = await vetDestination(destination.url, {
      environment: destination.environment,
      allowPrivate: deps.allowPrivateTargets,
      lookup: deps.lookup,
    });
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error;
    return { status: null, retryAfter: null, error: `not sent: ${error.message}`, durationMs: 0 };
  }
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    environment: event.environment,
    createdAt: apiDate(event.createdAt),
    data: event.data,
  });
  const box = await deps.secretBox();
  const secrets = [box.open(destination.secretCiphertext)];
  const previousValid =
    destination.previousSecretCiphertext &&
    destination.previousSecretExpiresAt &&
    destination.previousSecretExpiresAt.getTime() > deps.clock.now().getTime();
  if (previousValid) secrets.push(box.open(destination.previousSecretCiphertext as string));
  const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
  return sendWebhook({
    url: vetted.url,
    addresses: vetted.addresses,
    body,
    timeoutMs: deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, event.id, timestamp, body),
    },
  });
}

/**
 * A delivery to a disabled destination is parked (pending, no next attempt), not failed: enabling
 * the destination resumes it. The destination row is locked so an enable cannot slip in between.
 */
async function park(deps: DeliveryWorkerDeps, delivery: DeliveryRow): Promise<void> {
  const enabledMeanwhile = await deps.store.tx(async (tx) => {
    const row = await destinationsRepo.findForUpdate(
      tx,
      delivery.organizationId,
      delivery.environment,
      delivery.destinationId,
    );
    if (row?.status === 'enabled') return true;
    await deliveriesRepo.update(tx, delivery, { nextAttemptAt: null });
    return false;
  });
  if (enabledMeanwhile)
    throw new RetryJobAt(deps.clock.now(), `destination of ${delivery.id} was enabled again`);
}

/**
 * Sends one attempt of a delivery (job kind webhooks.attempt) and records it. The job runner's
 * lease makes one worker at a time hold the job; the delivery row, locked while the attempt is
 * recorded, decides whether a job still has anything to do.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { store, clock } = deps;

  return {
    async attempt(payload: AttemptJobPayload): Promise<void> {
      const delivery = await deliveriesRepo.find(store.db, payload.organizationId, payload.deliveryId);
      if (delivery?.status !== 'pending' || !delivery.nextAttemptAt) return;
      // Not yet due: another job owns the next attempt (this one is a leftover).
      if (delivery.nextAttemptAt.getTime() > clock.now().getTime()) return;
      const destination = await destinationsRepo.find(
        store.db,
        delivery.organizationId,
        delivery.environment,
        delivery.destinationId,
      );
      if (!destination || destination.status === 'disabled') {
        await park(deps, delivery);
        return;
      }
      const attemptedAt = clock.now();
      const result = await send(deps, delivery, destination);
      deps.onAttempt?.(outcomeOf(result));
      const outcome = await recordAttempt(deps, delivery, destination, result, attemptedAt);
      if (outcome) throw new RetryJobAt(outcome.retryAt, `retry of ${delivery.id} scheduled`);
    },

    /** The job itself failed too often (crashes, database errors): the delivery fails, redeliverable. */
    async onExhausted(tx: Tx, job: JobRow, error: string): Promise<void> {
      const payload = job.payload as unknown as AttemptJobPayload;
      const delivery = await deliveriesRepo.find(tx, payload.organizationId, payload.deliveryId);
      if (delivery?.status !== 'pending') return;
      await deliveriesRepo.update(tx, delivery, {
        status: 'failed',
        nextAttemptAt: null,
        lastError: `delivery worker gave up: ${error.slice(0, 200)}`,
      });
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
