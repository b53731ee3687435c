CREATE TABLE "identity_secrets" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"channel_id" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "identity_secrets_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "reject_cooldown_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "subject_kind" text;--> statement-breakpoint
CREATE INDEX "identity_secrets_channel_idx" ON "identity_secrets" USING btree ("organization_id","channel_id","created_at","id");