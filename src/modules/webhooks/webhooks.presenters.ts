import { apiDate } from '../../platform/http/dates.ts';
import type { AttemptRow, DeliveryRow, DestinationRow } from './webhooks.repo.ts';

/** The API representations of destinations and deliveries: never a secret, sealed or not. */

export function presentDestination(row: DestinationRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    status: row.status,
    disabledReason: row.disabledReason,
    environment: row.environment,
    createdAt: apiDate(row.createdAt),
    updatedAt: apiDate(row.updatedAt),
  };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    destinationId: row.destinationId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attemptCount: row.attemptCount,
    lastAttemptAt: apiDate(row.lastAttemptAt),
    nextAttemptAt: row.status === 'pending' ? apiDate(row.nextAttemptAt) : null,
    lastResponseStatus: row.lastResponseStatus,
    lastError: row.lastError,
    createdAt: apiDate(row.createdAt),
  };
}

export function presentAttempt(row: AttemptRow) {
  return {
    attemptedAt: apiDate(row.attemptedAt),
    responseStatus: row.responseStatus,
    durationMs: row.durationMs,
    error: row.error,
  };
}
