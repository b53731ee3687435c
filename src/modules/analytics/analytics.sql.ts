/**
 * The consent analytics aggregates (migration 0020), counted in SQL: by the consent
 * write's statement for its new events (analyticsCtes), and as one upsert per impression flush.
 *
 * A decision's outcome (`acceptAll`, `rejectAll` or `custom`) is the one stored on its event
 * (evidence_events.outcome), computed once by the consent module when it recorded the decision
 * (src/modules/consent/decisions.ts, decisionOutcome). `gpc`, `imports` and `handoffs` count the
 * decisions of those sources apart (each is also counted in the outcomes).
 */

/** The key of a daily aggregate row, as computed from an evidence event `e`. */
const dayKey = (e: string) => `${e}.organization_id, ${e}.environment, ${e}.channel_id,
    (${e}.recorded_at AT TIME ZONE 'UTC')::date AS day, coalesce(${e}.region, '') AS region,
    coalesce(${e}.regime, '') AS regime, ${e}.config_version,
    coalesce(${e}.app ->> 'platform', 'web') AS platform`;
const KEY_COLUMNS = 'organization_id, environment, channel_id, day, region, regime, config_version, platform';
const CONFLICT = 'organization_id, channel_id, day, region, regime, config_version, platform, shard';
/**
 * Rows per day key (migration 0020): each statement counts into one of them, picked at random once
 * per statement, so batches committing concurrently rarely wait on each other's row lock.
 */
export const SHARDS = 16;
const SHARD = `(SELECT floor(random() * ${SHARDS})::smallint)`;

/** Three CTEs counting the decisions of `events` (evidence_events rows) into both aggregate tables. */
export function analyticsCtes(events: string): string {
  return `analytics_outcomes AS MATERIALIZED (
  -- Each event's outcome as the consent module computed it when recording it (the outcome column).
  SELECT ${dayKey('ev')}, ev.source = 'gpc' AS by_gpc, ev.source = 'import' AS by_import,
    ev.source = 'handoff' AS by_handoff, ev.outcome
  FROM ${events} ev
),
analytics_daily AS (
  INSERT INTO consent_analytics_daily AS a (${KEY_COLUMNS}, shard, decisions, accept_all, reject_all, custom, gpc,
    imports, handoffs)
  SELECT ${KEY_COLUMNS}, ${SHARD}, count(*), count(*) FILTER (WHERE outcome = 'accept_all'),
    count(*) FILTER (WHERE outcome = 'reject_all'), count(*) FILTER (WHERE outcome = 'custom'),
    count(*) FILTER (WHERE by_gpc), count(*) FILTER (WHERE by_import), count(*) FILTER (WHERE by_handoff)
  FROM analytics_outcomes GROUP BY ${KEY_COLUMNS}
  ON CONFLICT (${CONFLICT}) DO UPDATE SET decisions = a.decisions + excluded.decisions,
    accept_all = a.accept_all + excluded.accept_all, reject_all = a.reject_all + excluded.reject_all,
    custom = a.custom + excluded.custom, gpc = a.gpc + excluded.gpc, imports = a.imports + excluded.imports,
    handoffs = a.handoffs + excluded.handoffs
),
analytics_purposes AS (
  INSERT INTO consent_analytics_purposes AS a (${KEY_COLUMNS}, purpose_key, shard, granted, denied)
  SELECT ${dayKey('ev')}, d.key, ${SHARD}, count(*) FILTER (WHERE d.value = 'granted'), count(*) FILTER (WHERE d.value = 'denied')
  FROM ${events} ev CROSS JOIN LATERAL jsonb_each_text(ev.decisions) AS d(key, value)
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, d.key
  ON CONFLICT (${CONFLICT}, purpose_key) DO UPDATE SET granted = a.granted + excluded.granted,
    denied = a.denied + excluded.denied
)`;
}

/** One flush of counted impressions: $1–$9 are parallel arrays (the key columns as text, then counts). */
export const IMPRESSIONS_UPSERT = `INSERT INTO consent_analytics_daily AS a (${KEY_COLUMNS}, shard, impressions)
  SELECT organization_id, environment, channel_id, day::date, region, regime, config_version::integer, platform, ${SHARD}, n::bigint
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
    AS i(organization_id, environment, channel_id, day, region, regime, config_version, platform, n)
  ON CONFLICT (${CONFLICT}) DO UPDATE SET impressions = a.impressions + excluded.impressions`;
