-- The order in which the service recorded each event, for "newest" in the consent state. recorded_at
-- is whole seconds (the value the receipt hash covers), so two decisions of one subject in one second
-- tied, and the random event id decided which one the state kept: a withdrawal could be lost. seq is
-- not part of the canonical event: receipts and ledger proofs are unchanged.
CREATE SEQUENCE IF NOT EXISTS "evidence_events_seq" AS bigint;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN IF NOT EXISTS "seq" bigint;--> statement-breakpoint
-- Events recorded before this migration get the order the state used until now (recorded_at, then
-- id), so the state built from them does not change. This rewrites every row once.
WITH "ordered" AS (
  SELECT "organization_id", "id", row_number() OVER (ORDER BY "recorded_at", "id") AS "n"
  FROM "evidence_events" WHERE "seq" IS NULL
)
UPDATE "evidence_events" e SET "seq" = o."n"
FROM "ordered" o WHERE e."organization_id" = o."organization_id" AND e."id" = o."id";--> statement-breakpoint
SELECT setval('"evidence_events_seq"', coalesce((SELECT max("seq") FROM "evidence_events"), 0) + 1, false);--> statement-breakpoint
ALTER TABLE "evidence_events" ALTER COLUMN "seq" SET DEFAULT nextval('"evidence_events_seq"');--> statement-breakpoint
ALTER TABLE "evidence_events" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
ALTER SEQUENCE "evidence_events_seq" OWNED BY "evidence_events"."seq";--> statement-breakpoint
ALTER TABLE "consent_state" ADD COLUMN IF NOT EXISTS "event_seq" bigint;--> statement-breakpoint
UPDATE "consent_state" s SET "event_seq" = e."seq"
FROM "evidence_events" e WHERE e."organization_id" = s."organization_id" AND e."id" = s."event_id";--> statement-breakpoint
UPDATE "consent_state" SET "event_seq" = 0 WHERE "event_seq" IS NULL;--> statement-breakpoint
ALTER TABLE "consent_state" ALTER COLUMN "event_seq" SET NOT NULL;
