/**
 * SQL of the webhooks tables (webhooks.tables.ts) that another module's statement composes: the
 * transactional outbox of an event written in that statement (docs/decisions/webhooks.md).
 */

export interface OutboxSource {
  /** A relation of the new rows an event is made of (organization_id, id, environment, …). */
  events: string;
  /** The event type; destinations subscribed to it or to `*` take the event. */
  type: string;
  /** The event's payload (jsonb) from a row `e` of `events`. */
  data: (e: string) => string;
  /** A timestamptz expression: the event's and the deliveries' time. */
  now: string;
}

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * Five CTEs: `outbox_takers` (a row per event and enabled destination of its organization and
 * environment that takes the type), `outbox_events` and `new_webhook_events` (one event row per taken
 * event, with a new message id), `outbox_deliveries` and `new_deliveries` (one pending delivery per
 * destination). The caller enqueues the first attempt of each row of `outbox_deliveries`
 * (organization_id, id) in the same statement. Without a taker, no rows at all.
 */
export function outboxCtes(source: OutboxSource): string {
  const type = literal(source.type);
  return `-- The ${source.type} outbox (webhooks module, docs/decisions/webhooks.md): an event row only for an event
-- that an enabled destination of its organization and environment takes, one pending delivery per such
-- destination, and the job that sends its first attempt. Most organizations have none: no rows.
outbox_takers AS MATERIALIZED (
  SELECT ne.*, d.id AS destination_id
  FROM ${source.events} ne
  JOIN webhook_destinations d
    ON d.organization_id = ne.organization_id AND d.environment = ne.environment
   AND d.status = 'enabled' AND d.event_types && ARRAY['*', ${type}]
),
outbox_events AS MATERIALIZED (
  SELECT DISTINCT ON (t.organization_id, t.id) t.*, new_id('msg') AS message_id
  FROM outbox_takers t
),
new_webhook_events AS (
  INSERT INTO webhook_events (organization_id, id, environment, type, data, created_at)
  SELECT organization_id, message_id, environment, ${type}, ${source.data('oe')}, ${source.now}
  FROM outbox_events oe
),
outbox_deliveries AS MATERIALIZED (
  SELECT t.organization_id, t.environment, t.destination_id, oe.message_id, new_id('dlv') AS id
  FROM outbox_takers t JOIN outbox_events oe ON (oe.organization_id, oe.id) = (t.organization_id, t.id)
),
new_deliveries AS (
  INSERT INTO webhook_deliveries (organization_id, id, environment, destination_id, event_id, event_type,
    status, attempt_count, round_start_attempt, next_attempt_at, created_at)
  SELECT organization_id, id, environment, destination_id, message_id, ${type},
    'pending', 0, 0, ${source.now}, ${source.now}
  FROM outbox_deliveries
)`;
}
