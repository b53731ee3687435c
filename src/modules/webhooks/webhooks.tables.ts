import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Where an organization's events go. Secrets are stored encrypted (secret-box.ts). */
export const webhookDestinations = pgTable(
  'webhook_destinations',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    url: text('url').notNull(),
    description: text('description'),
    /** ["*"] or a list of event types. */
    eventTypes: text('event_types').array().notNull(),
    status: text('status', { enum: ['enabled', 'disabled'] }).notNull(),
    disabledReason: text('disabled_reason', { enum: ['gone', 'failing', 'manual'] }),
    secretCiphertext: text('secret_ciphertext').notNull(),
    /** The secret before the last rotation: it still signs until previous_secret_expires_at. */
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousSecretExpiresAt: at('previous_secret_expires_at'),
    /** Start of the current run of failed attempts (null after a success): 5 days of it disables. */
    failingSince: at('failing_since'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('webhook_destinations_list_idx').on(t.organizationId, t.environment, t.createdAt, t.id),
  ],
);

/** The outbox: one row per event, written in the transaction of the change it describes. */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    organizationId: text('organization_id').notNull(),
    /** `msg_…`: the payload `id` and the `webhook-id` header of every delivery of the event. */
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    type: text('type').notNull(),
    data: jsonb('data').notNull().$type<Record<string, unknown>>(),
    createdAt: at('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] })],
);

/** One event to one destination; its attempts are in webhook_attempts. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    destinationId: text('destination_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attemptCount: integer('attempt_count').notNull(),
    /** attempt_count when the current retry schedule began (a redelivery starts a new one). */
    roundStartAttempt: integer('round_start_attempt').notNull(),
    lastAttemptAt: at('last_attempt_at'),
    /** Null on a pending delivery means parked: its destination is disabled (resumes on enable). */
    nextAttemptAt: at('next_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('webhook_deliveries_list_idx').on(t.organizationId, t.environment, t.createdAt, t.id),
    index('webhook_deliveries_destination_idx').on(t.organizationId, t.destinationId, t.createdAt, t.id),
    index('webhook_deliveries_parked_idx')
      .on(t.organizationId, t.destinationId)
      .where(sql`status = 'pending' and next_attempt_at is null`),
  ],
);

/** One row per HTTP try of a delivery (or a try refused before sending, by the address guard). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    deliveryId: text('delivery_id').notNull(),
    number: integer('number').notNull(),
    attemptedAt: at('attempted_at').notNull(),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.deliveryId, t.number] })],
);
