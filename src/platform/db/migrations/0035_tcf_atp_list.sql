CREATE TABLE "tcf_atp_list" (
	"id" integer PRIMARY KEY NOT NULL,
	"providers" jsonb,
	"fetched_at" timestamp with time zone,
	"next_fetch_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_error" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL
);
