-- Consent state of a subject (docs/guides/check-consent.md): the newest decision per purpose of each subject
-- on each channel, kept in the commit of every consent write (a CTE of consent-write.sql.ts) and by the
-- retention purge, so "may I use this person's data now?" is one indexed read. "Newest" is the
-- evidence order: recordedAt, then event id. Only pseudonyms, never the raw subject id.
CREATE TABLE IF NOT EXISTS "consent_state" (
  "organization_id" text NOT NULL,
  "environment" text NOT NULL,
  "channel_id" text NOT NULL,
  "subject_pseudonym" text NOT NULL,
  "purpose_key" text NOT NULL,
  "decision" text NOT NULL,
  "recorded_at" timestamptz NOT NULL,
  "event_id" text NOT NULL,
  "config_version" integer NOT NULL,
  "source" text NOT NULL,
  "region" text,
  "region_source" text,
  "regime" text,
  CONSTRAINT "consent_state_pkey" PRIMARY KEY ("organization_id", "channel_id", "subject_pseudonym", "purpose_key")
);--> statement-breakpoint
-- The state of events recorded before this migration is built afterwards by the worker, in bounded,
-- resumable batches (evidence/consent-state-backfill.ts), walking evidence_events in primary-key
-- order after (after_organization_id, after_id). done_at is set at once when there is nothing to build.
CREATE TABLE IF NOT EXISTS "consent_state_backfill" (
  "id" integer PRIMARY KEY DEFAULT 1 CHECK ("id" = 1),
  "after_organization_id" text,
  "after_id" text,
  "events" bigint NOT NULL DEFAULT 0,
  "started_at" timestamptz,
  "done_at" timestamptz
);--> statement-breakpoint
INSERT INTO "consent_state_backfill" ("id", "done_at")
SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM "evidence_events" WHERE "purged_at" IS NULL) THEN NULL ELSE now() END
ON CONFLICT ("id") DO NOTHING;--> statement-breakpoint
-- Receipts (docs/receipts.md): the SHA-256 (hex) of the capability token only the visitor receives; null on
-- events recorded before receipts (they have no receipt page). Not part of the canonical event.
ALTER TABLE "evidence_events" ADD COLUMN IF NOT EXISTS "receipt_token_hash" text;
