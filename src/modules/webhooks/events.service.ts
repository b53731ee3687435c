import type { Environment } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { newId } from '../../platform/ids.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import { scheduleAttempt } from './delivery-jobs.ts';
import { type EventType, filterMatches, isEventType, sanitizeEventData } from './event-types.ts';
import { type DeliveryRow, deliveriesRepo, destinationsRepo, eventsRepo } from './webhooks.repo.ts';

export interface WebhookEvent {
  type: EventType;
  organizationId: string;
  environment: Environment;
  /** The resource as the API shows it (no secrets; pseudonyms are masked here regardless). */
  data: Record<string, unknown>;
}

/**
 * The webhook outbox (design §4.5, §4.7). `emit` writes through `store.db`: called inside a
 * service's `store.tx`, the event, its deliveries and their attempt jobs commit or roll back with
 * the change they describe. Nothing is sent here; the worker sends (delivery-worker.ts).
 */
export function createEventsService(deps: { store: Store; clock: Clock; jobs: JobQueue }) {
  const { store, clock, jobs } = deps;
  return {
    /** Records the event and one pending delivery per enabled destination whose filter takes it. */
    async emit(event: WebhookEvent): Promise<void> {
      if (!isEventType(event.type)) throw new Error(`unknown webhook event type ${event.type}`);
      await store.tx(async () => {
        const now = clock.now();
        const id = newId('msg');
        await eventsRepo.insert(store.db, {
          organizationId: event.organizationId,
          id,
          environment: event.environment,
          type: event.type,
          data: sanitizeEventData(event.data) as Record<string, unknown>,
          createdAt: now,
        });
        const destinations = await destinationsRepo.enabled(
          store.db,
          event.organizationId,
          event.environment,
        );
        const deliveries: DeliveryRow[] = destinations
          .filter((destination) => filterMatches(destination.eventTypes, event.type))
          .map((destination) => ({
            organizationId: event.organizationId,
            id: newId('dlv'),
            environment: event.environment,
            destinationId: destination.id,
            eventId: id,
            eventType: event.type,
            status: 'pending',
            attemptCount: 0,
            roundStartAttempt: 0,
            lastAttemptAt: null,
            nextAttemptAt: now,
            lastResponseStatus: null,
            lastError: null,
            createdAt: now,
          }));
        await deliveriesRepo.insertMany(store.db, deliveries);
        for (const delivery of deliveries) await scheduleAttempt(jobs, delivery, now);
      });
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
