import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { Db, DbScope } from '../../platform/db/store.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import { scheduleAttempt } from './delivery-jobs.ts';
import { attemptsRepo, type DeliveryFilters, type DeliveryRow, deliveriesRepo } from './webhooks.repo.ts';

export function createDeliveriesService(deps: {
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  jobs: Pick<JobQueue, 'enqueue'>;
}) {
  const { clock, audit, jobs } = deps;

  async function find(db: Db, context: AuditContext, id: string): Promise<DeliveryRow> {
    const row = await deliveriesRepo.find(db, context.organizationId, id, {
      environment: context.environment,
    });
    if (!row) throw notFound('webhook delivery');
    return row;
  }

  return {
    list(
      db: DbScope,
      context: AuditContext,
      filters: DeliveryFilters,
      limit: number,
      after: CursorPosition | null,
    ) {
      return deliveriesRepo.list(db.read, context.organizationId, context.environment, filters, limit, after);
    },

    async get(db: DbScope, context: AuditContext, id: string) {
      const delivery = await find(db.read, context, id);
      const attempts = await attemptsRepo.ofDelivery(db.read, context.organizationId, id);
      return { delivery, attempts };
    },

    /**
     * Sends a failed delivery again, with the same event (so the same webhook-id) and a fresh retry
     * schedule. Its attempts so far stay on record and attemptCount keeps counting.
     */
    redeliver(db: DbScope, context: AuditContext, id: string): Promise<DeliveryRow> {
      return db.write(async (tx) => {
        const delivery = await deliveriesRepo.findForUpdate(tx, context.organizationId, id, {
          environment: context.environment,
        });
        if (!delivery) throw notFound('webhook delivery');
        if (delivery.status !== 'failed') {
          throw new AppError(
            'delivery_not_failed',
            `The delivery is ${delivery.status}; only a failed delivery can be redelivered.`,
          );
        }
        const now = clock.now();
        const updated = await deliveriesRepo.update(tx, delivery, {
          status: 'pending',
          roundStartAttempt: delivery.attemptCount,
          nextAttemptAt: now,
        });
        await scheduleAttempt(tx, jobs, updated, now);
        await audit.record(tx, context, {
          action: 'webhook_delivery.redelivered',
          target: { type: 'webhook_delivery', id },
        });
        return updated;
      });
    },
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
