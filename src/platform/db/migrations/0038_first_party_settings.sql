CREATE TABLE "handoffs" (
	"organization_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"environment" text NOT NULL,
	"channel_id" text NOT NULL,
	"subject_pseudonym" text NOT NULL,
	"from_origin" text NOT NULL,
	"target_origin" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"redeemed_at" timestamp with time zone,
	"redeemed_pseudonym" text,
	"handed_event_id" text,
	CONSTRAINT "handoffs_organization_id_token_hash_pk" PRIMARY KEY("organization_id","token_hash")
);
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "first_party_path" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "cookie_domain" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "cross_domain" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "imports" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "handoff" jsonb;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "imported_from" jsonb;--> statement-breakpoint
CREATE INDEX "handoffs_redeemed_idx" ON "handoffs" USING btree ("organization_id","channel_id","redeemed_pseudonym","redeemed_at") WHERE redeemed_pseudonym is not null;--> statement-breakpoint
CREATE INDEX "handoffs_expiry_idx" ON "handoffs" USING btree ("expires_at");--> statement-breakpoint
-- The consent analytics count decisions imported from a previous CMP (source import) and decisions
-- handed over from a sibling domain (source handoff) apart, as they count GPC decisions
-- (docs/guides/analytics.md). No event before this migration had either source: zero is exact.
ALTER TABLE "consent_analytics_daily" ADD COLUMN IF NOT EXISTS "imports" bigint NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE "consent_analytics_daily" ADD COLUMN IF NOT EXISTS "handoffs" bigint NOT NULL DEFAULT 0;
