CREATE TABLE "channel_config_versions" (
	"organization_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"version" integer NOT NULL,
	"snapshot" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "channel_config_versions_organization_id_channel_id_version_pk" PRIMARY KEY("organization_id","channel_id","version")
);
--> statement-breakpoint
CREATE TABLE "channels" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"site_key" text NOT NULL,
	"privacy_policy_url" text,
	"privacy_policy_version" text NOT NULL,
	"retention_days" integer NOT NULL,
	"config_version" integer NOT NULL,
	"default_language" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "channels_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "origins" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"channel_id" text NOT NULL,
	"origin" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "origins_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "purposes" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"channel_id" text NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"legal_basis" text NOT NULL,
	"required" boolean NOT NULL,
	"status" text NOT NULL,
	"translations" jsonb NOT NULL,
	"consent_mode_signals" text[] NOT NULL,
	"gpc_opt_out" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "purposes_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "technologies" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"channel_id" text NOT NULL,
	"name" text NOT NULL,
	"vendor" text,
	"purpose_keys" text[] NOT NULL,
	"cookies" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "technologies_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "channels_site_key_key" ON "channels" USING btree ("site_key");--> statement-breakpoint
CREATE INDEX "channels_list_idx" ON "channels" USING btree ("organization_id","environment","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "origins_channel_origin_key" ON "origins" USING btree ("organization_id","channel_id","origin") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "origins_list_idx" ON "origins" USING btree ("organization_id","channel_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "purposes_channel_key_key" ON "purposes" USING btree ("organization_id","channel_id","key");--> statement-breakpoint
CREATE INDEX "purposes_list_idx" ON "purposes" USING btree ("organization_id","channel_id","created_at","id");--> statement-breakpoint
CREATE INDEX "technologies_list_idx" ON "technologies" USING btree ("organization_id","channel_id","created_at","id");