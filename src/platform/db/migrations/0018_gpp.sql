-- IAB Global Privacy Platform (docs/regions.md): the operator's IAB CMP id on a channel (null: the SDK
-- provides no GPP API), and the GPP string a decision was sent with (null when none; such events,
-- like every event before this, have no gppString member in their canonical form).
ALTER TABLE "channels" ADD COLUMN IF NOT EXISTS "gpp_cmp_id" integer;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN IF NOT EXISTS "gpp_string" text;
