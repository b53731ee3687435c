-- Regions and regimes (docs/regions.md). A channel maps visitor regions to a regime and says how long a
-- decision lasts; both are part of the config snapshot. Existing channels get the defaults, which
-- mean what they did before: opt-in everywhere.
ALTER TABLE "channels" ADD COLUMN IF NOT EXISTS "region_rules" jsonb DEFAULT '[{"regions":["*"],"regime":"opt-in"}]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN IF NOT EXISTS "consent_max_age_days" integer DEFAULT 180 NOT NULL;--> statement-breakpoint
-- Whether a version is a material change (visitors are asked again), and the newest version that
-- was one as of this version. Versions stored before this are counted as material: until now every
-- new version asked again, so a visitor's standing decision means what it meant before.
ALTER TABLE "channel_config_versions" ADD COLUMN IF NOT EXISTS "reconsent" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_config_versions" ADD COLUMN IF NOT EXISTS "consent_required_since" integer;--> statement-breakpoint
UPDATE "channel_config_versions" SET "consent_required_since" = "version" WHERE "consent_required_since" IS NULL;--> statement-breakpoint
ALTER TABLE "channel_config_versions" ALTER COLUMN "consent_required_since" SET NOT NULL;--> statement-breakpoint
-- The visitor's region as the server resolved it when the decision was recorded. Null on events
-- recorded before regions existed: their canonical form (and so their ledger leaf) has no such
-- members. A new event always has region_source; region is null when the region is unknown.
ALTER TABLE "evidence_events" ADD COLUMN IF NOT EXISTS "region" text;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN IF NOT EXISTS "region_source" text;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN IF NOT EXISTS "regime" text;--> statement-breakpoint
-- GET /v1/evidence?region=… in list order. (On a large existing table, build it beforehand with
-- CREATE INDEX CONCURRENTLY under this name; IF NOT EXISTS then makes this a no-op.)
CREATE INDEX IF NOT EXISTS "evidence_events_region_idx" ON "evidence_events" USING btree ("organization_id","environment","region","recorded_at","id");
