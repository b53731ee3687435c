CREATE TABLE "evidence_events" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"channel_id" text NOT NULL,
	"subject_pseudonym" text,
	"decisions" jsonb,
	"config_version" integer,
	"policy_version" text,
	"source" text,
	"language" text,
	"gpc" boolean,
	"origin" text,
	"user_agent" text,
	"ip_prefix" text,
	"recorded_at" timestamp with time zone NOT NULL,
	"receipt_hash" text NOT NULL,
	"purged_at" timestamp with time zone,
	CONSTRAINT "evidence_events_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "evidence_events_list_idx" ON "evidence_events" USING btree ("organization_id","environment","recorded_at","id");--> statement-breakpoint
CREATE INDEX "evidence_events_channel_idx" ON "evidence_events" USING btree ("organization_id","environment","channel_id","recorded_at","id");--> statement-breakpoint
CREATE INDEX "evidence_events_subject_idx" ON "evidence_events" USING btree ("organization_id","environment","subject_pseudonym","recorded_at","id") WHERE subject_pseudonym is not null;--> statement-breakpoint
CREATE INDEX "evidence_events_retention_idx" ON "evidence_events" USING btree ("environment","recorded_at") WHERE purged_at is null;