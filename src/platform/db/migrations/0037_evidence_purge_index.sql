-- The row purge finds a channel's expired events through an index that starts at the channel
-- (organization, channel, recordedAt, unpurged only), so its cost follows what it deletes. The index it
-- replaces (environment, recordedAt) made every run walk all channels' older events and filter them by
-- channel afterwards: with one live channel keeping 30 days, every live event older than 30 days, each
-- hour. On a large table, build it first without holding writes (docs/guides/postgresql.md,
-- "Partitions"): this CREATE then attaches the partitions' indexes made beforehand instead of building.
CREATE INDEX IF NOT EXISTS "evidence_events_purge_idx" ON "evidence_events" USING btree ("organization_id","channel_id","recorded_at") WHERE purged_at is null;--> statement-breakpoint
DROP INDEX IF EXISTS "evidence_events_retention_idx";
