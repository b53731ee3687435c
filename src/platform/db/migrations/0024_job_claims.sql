-- The worker claims per job kind and per organization (jobs without one, system tasks, are one
-- group): the oldest queued job of each (kind, organization) is the first entry of its range here,
-- so finding every group with work reads one entry per group, however many jobs are queued.
CREATE INDEX IF NOT EXISTS "jobs_claim_idx" ON "jobs" USING btree ("kind", (coalesce("organization_id", '')), "run_at") WHERE status = 'queued';
