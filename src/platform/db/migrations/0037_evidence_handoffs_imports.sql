ALTER TABLE "evidence_events" ADD COLUMN "handoff" jsonb;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "imported_from" jsonb;