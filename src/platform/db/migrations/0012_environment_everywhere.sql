-- Every tenant-owned row says which environment (test or live) it belongs to, as the design asks
-- of every tenant-owned table. Rows written before this take their parent's environment: the
-- channel's for its parts and config versions, the delivery's for its attempts, the log's for the
-- ledger, the owner's (API key, site's channel, console session) for idempotency records. The
-- columns are added nullable, filled, then made NOT NULL, so a row without a parent stops the
-- migration (and its transaction) instead of being given a guessed environment.
ALTER TABLE "purposes" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "purposes" p SET "environment" = c."environment"
  FROM "channels" c WHERE c."organization_id" = p."organization_id" AND c."id" = p."channel_id";
--> statement-breakpoint
ALTER TABLE "purposes" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "technologies" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "technologies" t SET "environment" = c."environment"
  FROM "channels" c WHERE c."organization_id" = t."organization_id" AND c."id" = t."channel_id";
--> statement-breakpoint
ALTER TABLE "technologies" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "origins" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "origins" o SET "environment" = c."environment"
  FROM "channels" c WHERE c."organization_id" = o."organization_id" AND c."id" = o."channel_id";
--> statement-breakpoint
ALTER TABLE "origins" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "channel_config_versions" ADD COLUMN "environment" text;
--> statement-breakpoint
-- Config versions refuse updates (0004_channel_config_versions_immutable): the trigger is set
-- aside for this one backfill, which adds a fact about the row and changes nothing visitors saw.
-- The ALTER TABLE holds the table exclusively until the migrations' transaction ends, so no other
-- update can slip in while the trigger is off.
ALTER TABLE "channel_config_versions" DISABLE TRIGGER "channel_config_versions_immutable";
--> statement-breakpoint
UPDATE "channel_config_versions" v SET "environment" = c."environment"
  FROM "channels" c WHERE c."organization_id" = v."organization_id" AND c."id" = v."channel_id";
--> statement-breakpoint
ALTER TABLE "channel_config_versions" ENABLE TRIGGER "channel_config_versions_immutable";
--> statement-breakpoint
ALTER TABLE "channel_config_versions" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "webhook_attempts" a SET "environment" = d."environment"
  FROM "webhook_deliveries" d WHERE d."organization_id" = a."organization_id" AND d."id" = a."delivery_id";
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "ledger_leaves" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "ledger_leaves" x SET "environment" = l."environment"
  FROM "ledger_logs" l WHERE l."organization_id" = x."organization_id" AND l."id" = x."log_id";
--> statement-breakpoint
ALTER TABLE "ledger_leaves" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "ledger_nodes" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "ledger_nodes" x SET "environment" = l."environment"
  FROM "ledger_logs" l WHERE l."organization_id" = x."organization_id" AND l."id" = x."log_id";
--> statement-breakpoint
ALTER TABLE "ledger_nodes" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "ledger_tree_heads" ADD COLUMN "environment" text;
--> statement-breakpoint
UPDATE "ledger_tree_heads" x SET "environment" = l."environment"
  FROM "ledger_logs" l WHERE l."organization_id" = x."organization_id" AND l."id" = x."log_id";
--> statement-breakpoint
ALTER TABLE "ledger_tree_heads" ALTER COLUMN "environment" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "environment" text;
--> statement-breakpoint
-- The scope names the owner: an API key id (`key_…`), `site:<siteKey>`, or `session:<sessionId>`.
UPDATE "idempotency_keys" i SET "environment" = k."environment"
  FROM "api_keys" k WHERE k."organization_id" = i."organization_id" AND k."id" = i."scope";
--> statement-breakpoint
UPDATE "idempotency_keys" i SET "environment" = c."environment"
  FROM "channels" c WHERE c."organization_id" = i."organization_id" AND i."scope" = 'site:' || c."site_key";
--> statement-breakpoint
-- A session's environment at the time of the request is not recorded anywhere; its current one is
-- the best there is, and such a record lives 24 hours at most.
UPDATE "idempotency_keys" i SET "environment" = s."environment"
  FROM "member_sessions" s WHERE s."organization_id" = i."organization_id" AND i."scope" = 'session:' || s."id";
--> statement-breakpoint
-- A record whose owner no longer exists can never be replayed (no request can present that
-- owner again): it is only a stored response waiting for its purge, so it goes now.
DELETE FROM "idempotency_keys" WHERE "environment" IS NULL;
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "environment" SET NOT NULL;
