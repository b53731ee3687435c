/**
 * How the consent state (consent-state.tables.ts) follows the evidence, in SQL shared by the three
 * writers of the table: the consent write's statement, the backfill and the purge.
 *
 * "Newest" is the order in which the service recorded the events (evidence_events.seq, from one
 * sequence), not recordedAt: recordedAt is whole seconds, so two decisions of one subject in one
 * second (a grant, then a withdrawal) would otherwise tie and the random event id would pick one.
 */

const STATE_COLUMNS = [
  'organization_id',
  'environment',
  'channel_id',
  'subject_pseudonym',
  'purpose_key',
  'decision',
  'recorded_at',
  'event_id',
  'event_seq',
  'config_version',
  'source',
  'region',
  'region_source',
  'regime',
] as const;

const UPDATED = STATE_COLUMNS.filter(
  (c) => !['organization_id', 'channel_id', 'subject_pseudonym', 'purpose_key'].includes(c),
)
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/**
 * Two CTEs, `state_input` and `state_upsert`, that lay the decisions of `events` (a relation with
 * evidence_events' columns, `seq` included, purged rows excluded by the caller) over the state: per
 * subject, channel and purpose the newest of the batch, then kept only if newer than the stored one. "Newer wins"
 * makes the order of batches irrelevant, so concurrent writes, the backfill and the purge's
 * rebuild cannot undo each other; DISTINCT ON first, since one statement may not update a row twice.
 */
export function consentStateCtes(events: string, options: { tcStrings?: boolean } = {}): string {
  const tc = (options.tcStrings ?? true) ? `,\n${tcStringCtes(events)}` : '';
  return `${stateInputCte(events)},
state_upsert AS (
  INSERT INTO consent_state (${STATE_COLUMNS.join(', ')})
  SELECT ${STATE_COLUMNS.join(', ')} FROM state_input
  ON CONFLICT (organization_id, channel_id, subject_pseudonym, purpose_key) DO UPDATE SET ${UPDATED}
  WHERE consent_state.event_seq < excluded.event_seq
  RETURNING 1
)${tc}`;
}

const TC_COLUMNS =
  'organization_id, environment, channel_id, subject_pseudonym, tc_string, event_id, event_seq';

/** The upsert of consent_state_tc_strings from `source` (those columns): newer wins, as for the purposes. */
export function tcStringUpsert(source: string): string {
  return `INSERT INTO consent_state_tc_strings (${TC_COLUMNS})
  SELECT ${TC_COLUMNS} FROM ${source}
  ON CONFLICT (organization_id, channel_id, subject_pseudonym) DO UPDATE SET
    environment = excluded.environment, tc_string = excluded.tc_string, event_id = excluded.event_id,
    event_seq = excluded.event_seq
  WHERE consent_state_tc_strings.event_seq < excluded.event_seq`;
}

/**
 * `tc_input` and `tc_upsert`: per subject and channel, the newest event of `events` that carries a
 * TC string, kept only if newer than the stored one (consent-state.tables.ts).
 */
function tcStringCtes(events: string): string {
  return `tc_input AS (
  SELECT DISTINCT ON (ev.organization_id, ev.channel_id, ev.subject_pseudonym)
    ev.organization_id, ev.environment, ev.channel_id, ev.subject_pseudonym, ev.tc_string,
    ev.id AS event_id, ev.seq AS event_seq
  FROM ${events} ev WHERE ev.tc_string IS NOT NULL
  ORDER BY ev.organization_id, ev.channel_id, ev.subject_pseudonym, ev.seq DESC
),
tc_upsert AS (
  ${tcStringUpsert('tc_input')}
  RETURNING 1
)`;
}

/**
 * `state_input`: per subject, channel and purpose, the newest decision among `events`. Also the
 * state itself when `events` is all of a subject's unpurged evidence (a replay, see the repo).
 */
export function stateInputCte(events: string): string {
  return `state_input AS (
  SELECT DISTINCT ON (ev.organization_id, ev.channel_id, ev.subject_pseudonym, d.key)
    ev.organization_id, ev.environment, ev.channel_id, ev.subject_pseudonym, d.key AS purpose_key,
    d.value AS decision, ev.recorded_at, ev.id AS event_id, ev.seq AS event_seq, ev.config_version, ev.source,
    ev.region, ev.region_source, ev.regime
  FROM ${events} ev CROSS JOIN LATERAL jsonb_each_text(ev.decisions) AS d(key, value)
  ORDER BY ev.organization_id, ev.channel_id, ev.subject_pseudonym, d.key, ev.seq DESC
)`;
}
