/**
 * The consent write's one statement: a whole group-committed batch of
 * `POST /v1/public/sites/:siteKey/preferences` writes is this single SQL statement, one round trip
 * and one implicit transaction. Its text is fixed per process, so it is sent as a named statement
 * and parsed and planned once per pooled connection (see consent-write.ts).
 *
 * Every column travels as one text array (`unnest`), cast in SQL: both drivers (pg, PGlite) see
 * plain text arrays, and a batch of any size is the same statement.
 *
 * Data-modifying CTEs all run, in one snapshot, whether or not the final SELECT reads them; one
 * that reads another's RETURNING runs on its rows. The order of the work is therefore the order of
 * the references: records → won keys → events → ledger (trigger) → outbox.
 *
 * A table written with every consent write is one more CTE reading `new_events` (only the events
 * that were written): the consent state (consent-state.sql.ts) and the analytics counts (analytics.sql.ts).
 *
 * Each table has one owning module, and the SQL that writes it comes from its owner: this file
 * names only the evidence module's own tables and composes the rest from the owners' fragments
 * (the Idempotency-Key records, the webhooks outbox, the jobs, the analytics counts).
 */

import { IDEMPOTENCY_KEY_COLUMNS, storedKeysCte } from '../../platform/idempotency/idempotency.sql.ts';
import { jobInsertCte } from '../../platform/jobs/jobs.sql.ts';
import { analyticsCtes } from '../analytics/analytics.service.ts';
import { outboxCtes } from '../webhooks/webhooks.sql.ts';
import { consentStateCtes } from './consent-state.sql.ts';

/** The Idempotency-Key records of the batch, one per keyed write, keys distinct ($1–$12). */
const KEY_COLUMNS = IDEMPOTENCY_KEY_COLUMNS;

/** The batch's events ($13–$40), and $41: the 1-based position of its write's key record, or null. */
const EVENT_COLUMNS = [
  'organization_id',
  'id',
  'environment',
  'channel_id',
  'subject_pseudonym',
  'decisions',
  'config_version',
  'policy_version',
  'source',
  'language',
  'gpc',
  'origin',
  'user_agent',
  'ip_prefix',
  'region',
  'region_source',
  'regime',
  'gpp_string',
  'tc_string',
  'tcf',
  'subject_kind',
  'gpc_honored_shown',
  'handoff',
  'imported_from',
  'app',
  'outcome',
  'recorded_at',
  'receipt_hash',
  'receipt_token_hash',
] as const;

/** SQL types of the event columns not stored as text (the arrays are cast back to them). */
const CASTS: Record<string, string> = {
  decisions: 'jsonb',
  tcf: 'jsonb',
  handoff: 'jsonb',
  imported_from: 'jsonb',
  app: 'jsonb',
  config_version: 'integer',
  gpc: 'boolean',
  gpc_honored_shown: 'boolean',
  recorded_at: 'timestamptz',
};

const cast = (column: string) => (CASTS[column] ? `${column}::${CASTS[column]}` : column);
const list = (columns: readonly string[], map: (column: string, i: number) => string = (c) => c) =>
  columns.map(map).join(', ');

export const KEY_PARAMS = KEY_COLUMNS.length;
export const EVENT_PARAMS = EVENT_COLUMNS.length;
/** $41: per event, the position (from 1, as text) of its write's key record, null for a write without a key. */
const KEY_NO = KEY_PARAMS + EVENT_PARAMS + 1;
/** $42: the batch's time, for the outbox rows. */
const NOW = KEY_NO + 1;
export const CONSENT_WRITE_PARAMS = NOW;

/**
 * An evidence event as the API shows it (`presentEvidence`: masked pseudonym, with its receipt), as
 * jsonb: the consent.recorded webhook payload. jsonb ignores key order, so only the values must
 * match presenters.ts (webhooks.sanitizeEventData would change nothing on it).
 */
function maskedEventJsonb(e: string): string {
  return `jsonb_build_object(
      'id', ${e}.id, 'type', 'consent.recorded', 'channelId', ${e}.channel_id,
      'environment', ${e}.environment,
      'subject', jsonb_build_object('pseudonym', 'psn_****' || right(${e}.subject_pseudonym, 4)),
      'decisions', coalesce(${e}.decisions, '{}'::jsonb), 'configVersion', ${e}.config_version,
      'policyVersion', ${e}.policy_version, 'source', ${e}.source, 'language', ${e}.language,
      'gpc', ${e}.gpc, 'origin', ${e}.origin, 'userAgent', ${e}.user_agent, 'ipPrefix', ${e}.ip_prefix,
      'recordedAt', to_char(${e}.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
      'receipt', jsonb_build_object('hash', ${e}.receipt_hash))
    || CASE WHEN ${e}.region_source IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(
      'region', ${e}.region, 'regionSource', ${e}.region_source, 'regime', ${e}.regime) END
    || CASE WHEN ${e}.gpp_string IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('gppString', ${e}.gpp_string) END
    || CASE WHEN ${e}.tc_string IS NULL THEN '{}'::jsonb
      ELSE jsonb_build_object('tcString', ${e}.tc_string, 'tcf', ${e}.tcf) END
    || CASE WHEN ${e}.subject_kind IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('subjectKind', ${e}.subject_kind) END
    || CASE WHEN ${e}.gpc_honored_shown IS TRUE THEN jsonb_build_object('gpcHonoredShown', true) ELSE '{}'::jsonb END
    || CASE WHEN ${e}.handoff IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('handoff', ${e}.handoff) END
    || CASE WHEN ${e}.imported_from IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('importedFrom', ${e}.imported_from) END
    || CASE WHEN ${e}.app IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('app', ${e}.app) END`;
}

/** How the outbox rows are made: the webhooks module's attempt job (omitted when no outbox is wired). */
export interface OutboxJob {
  kind: string;
  maxAttempts: number;
}

/**
 * The statement's text. `tcStrings: false` leaves out the upsert of the subjects' TC strings, for
 * a batch in which no event carries one (most batches: only TCF channels send TC strings), so that
 * such a batch does not pay for its planning and its empty DISTINCT ON.
 * Its result: one row per key record that was stored (`key_no`, from 1);
 * a keyed write whose record is not among them found its key taken (a live record, or a
 * concurrent transaction's that committed first) and wrote nothing.
 */
export function consentWriteSql(outbox: OutboxJob | null, options: { tcStrings: boolean }): string {
  const keyParams = list(KEY_COLUMNS, (_, i) => `$${i + 1}::text[]`);
  const eventParams = list(EVENT_COLUMNS, (_, i) => `$${KEY_PARAMS + i + 1}::text[]`);
  const now = `$${NOW}::timestamptz`;
  const outboxPart = outbox
    ? `,
${outboxCtes({ events: 'new_events', type: 'consent.recorded', data: maskedEventJsonb, now })},
${jobInsertCte('new_jobs', {
  kind: outbox.kind,
  maxAttempts: outbox.maxAttempts,
  from: 'outbox_deliveries',
  organizationId: 'organization_id',
  payload: "jsonb_build_object('organizationId', organization_id, 'deliveryId', id)",
  now,
})}`
    : '';

  return `-- consent write (src/modules/evidence/consent-write.sql.ts)
WITH
key_input AS (
  SELECT * FROM unnest(${keyParams}) WITH ORDINALITY AS k(${list(KEY_COLUMNS)}, key_no)
),
${storedKeysCte('key_input')},
won_keys AS (
  SELECT k.key_no FROM key_input k JOIN stored_keys s USING (organization_id, scope, key)
),
event_input AS (
  SELECT * FROM unnest(${eventParams}, $${KEY_NO}::text[]) AS e(${list(EVENT_COLUMNS)}, key_no)
),
-- The events of the writes without a key, and of those whose key was stored. The ledger queue
-- (ledger_pending) is filled from these rows by the statement-level trigger of migration 0014, at
-- the end of this statement and in its transaction: every insert path gets it, this one included.
new_events AS (
  INSERT INTO evidence_events (${list(EVENT_COLUMNS)})
  SELECT ${list(EVENT_COLUMNS, cast)} FROM event_input
  WHERE key_no IS NULL OR key_no::bigint IN (SELECT key_no FROM won_keys)
  RETURNING *
)${outboxPart},
-- The subjects' consent state (newest decision per purpose), in the same commit as their events.
${consentStateCtes('new_events', options)},
-- The consent analytics counts: a decision counted exactly when it is stored.
${analyticsCtes('new_events')}
SELECT key_no::integer AS key_no FROM won_keys`;
}
