-- The consent analytics count decisions imported from a previous CMP (source import) and decisions
-- handed over from a sibling domain (source handoff) apart, as they count GPC decisions
-- (docs/guides/analytics.md). No event before this migration had either source: zero is exact.
ALTER TABLE "consent_analytics_daily" ADD COLUMN IF NOT EXISTS "imports" bigint NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE "consent_analytics_daily" ADD COLUMN IF NOT EXISTS "handoffs" bigint NOT NULL DEFAULT 0;
