/**
 * Recording a sent webhook attempt: the attempt row, the delivery's next step (succeeded, retry,
 * failed) and the destination's failing state, apart from the worker that sends it.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { nextStep } from './next-step.ts';
import type { SendResult } from './webhook-sender.ts';
import {
  attemptsRepo,
  type DeliveryRow,
  type DestinationRow,
  deliveriesRepo,
  destinationsRepo,
} from './webhooks.repo.ts';

/** What recording an attempt needs of the delivery worker's deps. */
export interface AttemptRecordingDeps {
  store: Store;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  retryScheduleSeconds: number[];
}

/** When the job runs the attempt again, or null when the delivery is settled. */
type Outcome = { retryAt: Date } | null;

/** The audit context of a disable the worker decided: no user or key did it. */
const systemContext = (row: DestinationRow) => ({
  organizationId: row.organizationId,
  environment: row.environment,
  actor: { type: 'system' as const, id: null },
  requestId: null,
  ipPrefix: null,
});

async function disableDestination(
  deps: AttemptRecordingDeps,
  tx: Tx,
  destination: DestinationRow,
  reason: 'gone' | 'failing',
) {
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
    updatedAt: deps.clock.now(),
  });
  await deps.audit.record(tx, systemContext(row), {
    action: 'webhook_destination.disabled',
    target: { type: 'webhook_destination', id: row.id },
  });
}

/** Records the attempt and decides what comes next, in one transaction with the delivery locked. */
export function recordAttempt(
  deps: AttemptRecordingDeps,
  sent: DeliveryRow,
  destination: DestinationRow,
  result: SendResult,
  attemptedAt: Date,
) {
  return deps.store.tx(async (tx): Promise<Outcome> => {
    const delivery = await deliveriesRepo.findForUpdate(tx, sent.organizationId, sent.id);
    // Someone else recorded this attempt (a lease that lapsed mid-send): do not count it twice.
    if (delivery?.status !== 'pending' || delivery.attemptCount !== sent.attemptCount) return null;
    const number = delivery.attemptCount + 1;
    const now = deps.clock.now();
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
    if (step.disable) await disableDestination(deps, tx, destination, step.disable);
    if (step.delivery === 'failed' || !('retryAt' in step) || step.retryAt === null) {
      await deliveriesRepo.update(tx, delivery, { ...base, status: 'failed', nextAttemptAt: null });
      return null;
    }
    await deliveriesRepo.update(tx, delivery, { ...base, nextAttemptAt: step.retryAt });
    return { retryAt: step.retryAt };
  });
}
