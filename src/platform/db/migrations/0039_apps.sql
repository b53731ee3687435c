CREATE TABLE "channel_apps" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"channel_id" text NOT NULL,
	"app_id" text NOT NULL,
	"store" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "channel_apps_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "handoffs" ALTER COLUMN "from_origin" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "platform" text DEFAULT 'web' NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "app" jsonb;--> statement-breakpoint
ALTER TABLE "handoffs" ADD COLUMN "from_app" text;--> statement-breakpoint
ALTER TABLE "handoffs" ADD COLUMN "from_channel_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_apps_channel_app_key" ON "channel_apps" USING btree ("organization_id","channel_id","app_id") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "channel_apps_list_idx" ON "channel_apps" USING btree ("organization_id","channel_id","created_at","id");--> statement-breakpoint
-- The consent analytics group by platform (docs/guides/apps.md): "web" for a web channel's pages,
-- else the X-Consent-Platform of the app that sent the decision (ios, android, other). No event
-- before this migration came from an app: "web" is exact for every row it finds.
ALTER TABLE "consent_analytics_daily" ADD COLUMN IF NOT EXISTS "platform" text NOT NULL DEFAULT 'web';--> statement-breakpoint
ALTER TABLE "consent_analytics_daily" DROP CONSTRAINT "consent_analytics_daily_pkey";--> statement-breakpoint
ALTER TABLE "consent_analytics_daily" ADD CONSTRAINT "consent_analytics_daily_pkey" PRIMARY KEY ("organization_id", "channel_id", "day", "region", "regime", "config_version", "platform", "shard");--> statement-breakpoint
ALTER TABLE "consent_analytics_purposes" ADD COLUMN IF NOT EXISTS "platform" text NOT NULL DEFAULT 'web';--> statement-breakpoint
ALTER TABLE "consent_analytics_purposes" DROP CONSTRAINT "consent_analytics_purposes_pkey";--> statement-breakpoint
ALTER TABLE "consent_analytics_purposes" ADD CONSTRAINT "consent_analytics_purposes_pkey" PRIMARY KEY ("organization_id", "channel_id", "day", "region", "regime", "config_version", "platform", "purpose_key", "shard");
