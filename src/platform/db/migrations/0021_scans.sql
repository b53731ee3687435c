-- Tracker scans (docs/guides/tracker-scans.md): one row per requested scan of a channel's pages. The findings
-- and their summary are written once, when the scan ends; a scan is small (three profiles per URL, a
-- few hundred findings at most), so they are kept as JSON beside it rather than as rows.
CREATE TABLE IF NOT EXISTS "scans" (
  "organization_id" text NOT NULL,
  "id" text NOT NULL,
  "environment" text NOT NULL,
  "channel_id" text NOT NULL,
  "status" text NOT NULL,
  "urls" jsonb NOT NULL,
  "config_version" integer NOT NULL,
  "requested_by" text,
  "created_at" timestamptz NOT NULL,
  "started_at" timestamptz,
  "completed_at" timestamptz,
  "failure_reason" text,
  "regime" text,
  "summary" jsonb,
  "findings" jsonb,
  CONSTRAINT "scans_pkey" PRIMARY KEY ("organization_id", "id")
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "scans_list_idx" ON "scans" ("organization_id", "channel_id", "created_at", "id");--> statement-breakpoint
-- One scan per channel at a time: a second request while one is queued or running is refused (409).
CREATE UNIQUE INDEX IF NOT EXISTS "scans_one_active_key" ON "scans" ("organization_id", "channel_id")
  WHERE "status" IN ('queued', 'running');--> statement-breakpoint
-- Hosts a technology loads from (exact, or "*.example.com" for its subdomains): how a scan matches the
-- third-party requests it sees to a declared technology. Not shown to visitors, so not in the config.
ALTER TABLE "technologies" ADD COLUMN IF NOT EXISTS "hosts" text[] NOT NULL DEFAULT '{}';
