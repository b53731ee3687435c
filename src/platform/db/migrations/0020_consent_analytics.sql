-- Consent analytics (docs/guides/analytics.md): per channel, UTC day, region, regime and config version, the
-- counts GET /v1/analytics/consent sums. Decisions are counted in the consent write's statement
-- (analytics.sql.ts), impressions in batches flushed by each process. They hold no personal data,
-- so the retention purge leaves them; test-environment rows go after a day, like test evidence.
-- region and regime are '' when unknown (a primary key has no nulls); reads show them as null.
-- shard spreads one day's counts over 16 rows: concurrent consent-write batches of one channel then
-- update different rows instead of queueing on one row lock until each commits; reads sum the shards.
CREATE TABLE IF NOT EXISTS "consent_analytics_daily" (
  "organization_id" text NOT NULL,
  "environment" text NOT NULL,
  "channel_id" text NOT NULL,
  "day" date NOT NULL,
  "region" text NOT NULL,
  "regime" text NOT NULL,
  "config_version" integer NOT NULL,
  "shard" smallint NOT NULL DEFAULT 0,
  "impressions" bigint NOT NULL DEFAULT 0,
  "decisions" bigint NOT NULL DEFAULT 0,
  "accept_all" bigint NOT NULL DEFAULT 0,
  "reject_all" bigint NOT NULL DEFAULT 0,
  "custom" bigint NOT NULL DEFAULT 0,
  "gpc" bigint NOT NULL DEFAULT 0,
  CONSTRAINT "consent_analytics_daily_pkey" PRIMARY KEY ("organization_id", "channel_id", "day", "region", "regime", "config_version", "shard")
);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "consent_analytics_purposes" (
  "organization_id" text NOT NULL,
  "environment" text NOT NULL,
  "channel_id" text NOT NULL,
  "day" date NOT NULL,
  "region" text NOT NULL,
  "regime" text NOT NULL,
  "config_version" integer NOT NULL,
  "purpose_key" text NOT NULL,
  "shard" smallint NOT NULL DEFAULT 0,
  "granted" bigint NOT NULL DEFAULT 0,
  "denied" bigint NOT NULL DEFAULT 0,
  CONSTRAINT "consent_analytics_purposes_pkey" PRIMARY KEY ("organization_id", "channel_id", "day", "region", "regime", "config_version", "purpose_key", "shard")
);--> statement-breakpoint
-- Events recorded before this migration, counted once here (a one-time scan; new events are counted as written).
INSERT INTO "consent_analytics_daily" ("organization_id", "environment", "channel_id", "day", "region", "regime", "config_version", "decisions", "accept_all", "reject_all", "custom", "gpc")
SELECT e.organization_id, e.environment, e.channel_id, (e.recorded_at AT TIME ZONE 'UTC')::date, coalesce(e.region, ''), coalesce(e.regime, ''), e.config_version,
  count(*), count(*) FILTER (WHERE o.denied = 0), count(*) FILTER (WHERE o.denied > 0 AND o.granted = 0),
  count(*) FILTER (WHERE o.denied > 0 AND o.granted > 0), count(*) FILTER (WHERE e.source = 'gpc')
FROM "evidence_events" e
LEFT JOIN "channel_config_versions" v ON v.organization_id = e.organization_id AND v.channel_id = e.channel_id AND v.version = e.config_version
CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE e.decisions ->> (p ->> 'key') = 'granted') AS granted,
         count(*) FILTER (WHERE e.decisions ->> (p ->> 'key') IS DISTINCT FROM 'granted') AS denied
  FROM jsonb_array_elements(coalesce(v.snapshot -> 'purposes', '[]'::jsonb)) p
  WHERE coalesce((p ->> 'required')::boolean, false) = false
) o
WHERE e.purged_at IS NULL
GROUP BY 1, 2, 3, 4, 5, 6, 7
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "consent_analytics_purposes" ("organization_id", "environment", "channel_id", "day", "region", "regime", "config_version", "purpose_key", "granted", "denied")
SELECT e.organization_id, e.environment, e.channel_id, (e.recorded_at AT TIME ZONE 'UTC')::date, coalesce(e.region, ''), coalesce(e.regime, ''), e.config_version,
  d.key, count(*) FILTER (WHERE d.value = 'granted'), count(*) FILTER (WHERE d.value = 'denied')
FROM "evidence_events" e CROSS JOIN LATERAL jsonb_each_text(e.decisions) AS d(key, value)
WHERE e.purged_at IS NULL
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
ON CONFLICT DO NOTHING;
