CREATE TABLE "consent_state_tc_strings" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"channel_id" text NOT NULL,
	"subject_pseudonym" text NOT NULL,
	"tc_string" text NOT NULL,
	"event_id" text NOT NULL,
	"event_seq" bigint NOT NULL,
	CONSTRAINT "consent_state_tc_strings_pkey" PRIMARY KEY("organization_id","channel_id","subject_pseudonym")
);
--> statement-breakpoint
-- The TC strings of the events recorded before this table: per channel and subject, the
-- newest unpurged event that carried one. Later writes, the backfill and the purge keep it up to date.
INSERT INTO "consent_state_tc_strings" ("organization_id", "environment", "channel_id", "subject_pseudonym", "tc_string", "event_id", "event_seq")
SELECT DISTINCT ON ("organization_id", "channel_id", "subject_pseudonym")
  "organization_id", "environment", "channel_id", "subject_pseudonym", "tc_string", "id", "seq"
FROM "evidence_events"
WHERE "tc_string" IS NOT NULL AND "purged_at" IS NULL
ORDER BY "organization_id", "channel_id", "subject_pseudonym", "seq" DESC;
