import type { Environment } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Tx } from '../../platform/db/store.ts';
import { newId } from '../../platform/ids.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import { ATTEMPT_JOB, ATTEMPT_JOB_MAX_ATTEMPTS, scheduleAttempt } from './delivery-jobs.ts';
import { type EventType, filterMatches, isEventType, sanitizeEventData } from './event-types.ts';
import {
  type DeliveryRow,
  deliveriesRepo,
  destinationsRepo,
  type EventRow,
  eventsRepo,
} from './webhooks.repo.ts';

export interface WebhookEvent {
  type: EventType;
  organizationId: string;
  environment: Environment;
  /** The resource as the API shows it (no secrets; pseudonyms are masked here regardless). */
  data: Record<string, unknown>;
}

/**
 * The webhook outbox (docs/decisions/webhooks.md): an event, one delivery per destination, one
 * attempt job per try. `emit(tx, …)` writes through the caller's transaction:
 * the event, its deliveries and their attempt jobs commit or roll back with the change they
 * describe. Nothing is sent here; the worker sends (delivery-worker.ts).
 */
export function createEventsService(deps: { clock: Clock; jobs: Pick<JobQueue, 'enqueue'> }) {
  const { clock, jobs } = deps;

  /** The enabled destinations of each organization and environment among the events, one query each. */
  async function destinationsFor(tx: Tx, events: WebhookEvent[]) {
    const byScope = new Map<string, Awaited<ReturnType<typeof destinationsRepo.enabled>>>();
    for (const event of events) {
      const scope = `${event.organizationId}|${event.environment}`;
      if (!byScope.has(scope))
        byScope.set(scope, await destinationsRepo.enabled(tx, event.organizationId, event.environment));
    }
    return (event: WebhookEvent) => byScope.get(`${event.organizationId}|${event.environment}`) ?? [];
  }

  const service = {
    /**
     * The job that sends a delivery's attempt, for a writer that makes deliveries in its own SQL
     * (the consent write's statement, evidence/consent-write.sql.ts).
     */
    attemptJob: { kind: ATTEMPT_JOB, maxAttempts: ATTEMPT_JOB_MAX_ATTEMPTS },

    /** Records the event and one pending delivery per enabled destination whose filter takes it. */
    emit: (tx: Tx, event: WebhookEvent): Promise<void> => service.emitMany(tx, [event]),

    /**
     * `emit` for several events at once, in multi-row statements (the evidence group commit).
     * An event that no enabled destination takes is not stored: only a delivery ever reads an
     * event, and deliveries are made here, at emit time. Most organizations have no webhook
     * for consent.recorded, so most consent writes skip the event's row and its payload (bench b).
     */
    async emitMany(tx: Tx, events: WebhookEvent[]): Promise<void> {
      if (events.length === 0) return;
      for (const event of events) {
        if (!isEventType(event.type)) throw new Error(`unknown webhook event type ${event.type}`);
      }
      const now = clock.now();
      const destinationsOf = await destinationsFor(tx, events);
      const rows: EventRow[] = [];
      const deliveries: DeliveryRow[] = [];
      for (const event of events) {
        const takers = destinationsOf(event).filter((destination) =>
          filterMatches(destination.eventTypes, event.type),
        );
        if (takers.length === 0) continue;
        const row: EventRow = {
          organizationId: event.organizationId,
          id: newId('msg'),
          environment: event.environment,
          type: event.type,
          data: sanitizeEventData(event.data) as Record<string, unknown>,
          createdAt: now,
        };
        rows.push(row);
        for (const destination of takers)
          deliveries.push({
            organizationId: row.organizationId,
            id: newId('dlv'),
            environment: row.environment,
            destinationId: destination.id,
            eventId: row.id,
            eventType: row.type,
            status: 'pending' as const,
            attemptCount: 0,
            roundStartAttempt: 0,
            lastAttemptAt: null,
            nextAttemptAt: now,
            lastResponseStatus: null,
            lastError: null,
            createdAt: now,
          });
      }
      await eventsRepo.insertMany(tx, rows);
      await deliveriesRepo.insertMany(tx, deliveries);
      for (const delivery of deliveries) await scheduleAttempt(tx, jobs, delivery, now);
    },
  };
  return service;
}

export type EventsService = ReturnType<typeof createEventsService>;
