ALTER TABLE "evidence_events" ADD COLUMN "outcome" text;--> statement-breakpoint
-- The outcome of every event recorded before the column (purged ones keep none: their decisions are
-- gone), as the analytics statement computed it until then: the optional purposes of the config
-- version answered (from its snapshot), accept_all when none is denied (also when there is none),
-- reject_all when some are and none is granted, custom otherwise; a purpose the decisions do not
-- name counts as denied (src/modules/consent/decisions.ts, decisionOutcome).
WITH versions AS MATERIALIZED (
  SELECT v.organization_id, v.channel_id, v.version,
    coalesce(array_agg(p ->> 'key') FILTER (WHERE NOT coalesce((p ->> 'required')::boolean, false)), '{}') AS optional
  FROM (SELECT DISTINCT organization_id, channel_id, config_version FROM evidence_events WHERE purged_at IS NULL) b
  JOIN channel_config_versions v
    ON v.organization_id = b.organization_id AND v.channel_id = b.channel_id AND v.version = b.config_version
  CROSS JOIN LATERAL jsonb_array_elements(v.snapshot -> 'purposes') p
  GROUP BY v.organization_id, v.channel_id, v.version
),
outcomes AS (
  SELECT ev.organization_id, ev.id,
    CASE WHEN o.denied = 0 THEN 'accept_all' WHEN o.granted = 0 THEN 'reject_all' ELSE 'custom' END AS outcome
  FROM evidence_events ev
  LEFT JOIN versions v
    ON v.organization_id = ev.organization_id AND v.channel_id = ev.channel_id AND v.version = ev.config_version
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE ev.decisions ->> k = 'granted') AS granted,
           count(*) FILTER (WHERE ev.decisions ->> k IS DISTINCT FROM 'granted') AS denied
    FROM unnest(coalesce(v.optional, '{}')) AS k
  ) o
  WHERE ev.purged_at IS NULL
)
UPDATE evidence_events e SET outcome = outcomes.outcome
  FROM outcomes WHERE e.organization_id = outcomes.organization_id AND e.id = outcomes.id;
