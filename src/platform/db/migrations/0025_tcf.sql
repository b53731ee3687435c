CREATE TABLE "tcf_mirror_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"next_fetch_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_error" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tcf_vendor_list_languages" (
	"vendor_list_version" integer NOT NULL,
	"language" text NOT NULL,
	"body" jsonb NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "tcf_vendor_list_languages_vendor_list_version_language_pk" PRIMARY KEY("vendor_list_version","language")
);
--> statement-breakpoint
CREATE TABLE "tcf_vendor_lists" (
	"vendor_list_version" integer PRIMARY KEY NOT NULL,
	"tcf_policy_version" integer NOT NULL,
	"last_updated" timestamp with time zone NOT NULL,
	"body" jsonb NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "tcf" jsonb;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "tc_string" text;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "tcf" jsonb;