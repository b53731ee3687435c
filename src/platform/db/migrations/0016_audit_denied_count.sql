-- Refused requests (403, action auth.denied) are audited once per actor, route and minute, and
-- count says how many of them that minute held: a key hammering a route it may not use wrote one
-- row per request before (5,726 rows in 10 s). Every other entry stays one event, count 1.
ALTER TABLE "audit_logs" ADD COLUMN IF NOT EXISTS "count" integer DEFAULT 1 NOT NULL;
