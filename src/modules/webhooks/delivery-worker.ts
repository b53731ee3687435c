import type { Clock } from '../../platform/clock.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import { DestinationRefused, type Lookup, vetDestination } from '../../platform/http/address-guard.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { RetryJobAt } from '../../platform/jobs/job-runner.ts';
import type { JobRow } from '../../platform/jobs/jobs.repo.ts';
import type { WebhookAttemptOutcome } from '../../platform/metrics/metrics.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { AttemptJobPayload } from './delivery-jobs.ts';
import { nextStep } from './next-step.ts';
import type { SecretBox } from './webhook-secrets.ts';
import { signatureHeader } from './webhook-secrets.ts';
import { type SendResult, sendWebhook } from './webhook-sender.ts';
import {
  attemptsRepo,
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

type Outcome = { retryAt: Date } | null;

/**
 * Sends one attempt of a delivery (job kind webhooks.attempt) and records it. The job runner's
 * lease makes one worker at a time hold the job; the delivery row, locked while the attempt is
 * recorded, decides whether a job still has anything to do.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { store, clock, audit } = deps;

  const systemContext = (row: DestinationRow) => ({
    organizationId: row.organizationId,
    environment: row.environment,
    actor: { type: 'system' as const, id: null },
    requestId: null,
    ipPrefix: null,
  });

  async function disableDestination(tx: Tx, destination: DestinationRow, reason: 'gone' | 'failing') {
    const row = await destinationsRepo.findForUpdate(
      tx,
      destination.organizationId,
      destination.environment,
      destination.id,
    );
    if (!row || row.status === 'disabled') return;
    await destinationsRepo.update(tx, row, {
      status: 'disabled',
      disabledReason: reason,
      updatedAt: clock.now(),
    });
    await audit.record(tx, systemContext(row), {
      action: 'webhook_destination.disabled',
      target: { type: 'webhook_destination', id: row.id },
    });
  }

  async function send(delivery: DeliveryRow, destination: DestinationRow): Promise<SendResult> {
    const event = await eventsRepo.find(store.db, delivery.organizationId, delivery.eventId);
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
      destination.previousSecretExpiresAt.getTime() > clock.now().getTime();
    if (previousValid) secrets.push(box.open(destination.previousSecretCiphertext as string));
    const timestamp = Math.floor(clock.now().getTime() / 1000);
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

  /** Records the attempt and decides what comes next, in one transaction with the delivery locked. */
  function record(sent: DeliveryRow, destination: DestinationRow, result: SendResult, attemptedAt: Date) {
    return store.tx(async (tx): Promise<Outcome> => {
      const delivery = await deliveriesRepo.findForUpdate(tx, sent.organizationId, sent.id);
      // Someone else recorded this attempt (a lease that lapsed mid-send): do not count it twice.
      if (delivery?.status !== 'pending' || delivery.attemptCount !== sent.attemptCount) return null;
      const number = delivery.attemptCount + 1;
      const now = clock.now();
      await attemptsRepo.insert(tx, {
        organizationId: delivery.organizationId,
        environment: delivery.environment,
        deliveryId: delivery.id,
        number,
        attemptedAt,
        responseStatus: result.status,
        durationMs: result.durationMs,
        error: result.error,
      });
      const base = {
        attemptCount: number,
        lastAttemptAt: attemptedAt,
        lastResponseStatus: result.status,
        lastError: result.error,
      };
      // The destination as stored now (another attempt may have marked it failing meanwhile).
      const current = await destinationsRepo.find(
        tx,
        destination.organizationId,
        destination.environment,
        destination.id,
      );
      const step = nextStep(result, delivery, current ?? null, now, {
        retryScheduleSeconds: deps.retryScheduleSeconds,
        jitter: Math.random(),
      });
      if (step.delivery === 'succeeded') {
        if (step.clearFailing && current) await destinationsRepo.update(tx, current, { failingSince: null });
        await deliveriesRepo.update(tx, delivery, { ...base, status: 'succeeded', nextAttemptAt: null });
        return null;
      }
      if ('markFailingSince' in step && step.markFailingSince && current)
        await destinationsRepo.update(tx, current, { failingSince: step.markFailingSince });
      if (step.disable) await disableDestination(tx, destination, step.disable);
      if (step.delivery === 'failed' || !('retryAt' in step) || step.retryAt === null) {
        await deliveriesRepo.update(tx, delivery, { ...base, status: 'failed', nextAttemptAt: null });
        return null;
      }
      await deliveriesRepo.update(tx, delivery, { ...base, nextAttemptAt: step.retryAt });
      return { retryAt: step.retryAt };
    });
  }

  /**
   * A delivery to a disabled destination is parked (pending, no next attempt), not failed: enabling
   * the destination resumes it. The destination row is locked so an enable cannot slip in between.
   */
  async function park(delivery: DeliveryRow): Promise<void> {
    const enabledMeanwhile = await store.tx(async (tx) => {
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
      throw new RetryJobAt(clock.now(), `destination of ${delivery.id} was enabled again`);
  }

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
        await park(delivery);
        return;
      }
      const attemptedAt = clock.now();
      const result = await send(delivery, destination);
      deps.onAttempt?.(outcomeOf(result));
      const outcome = await record(delivery, destination, result, attemptedAt);
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
