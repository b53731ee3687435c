CREATE TABLE "idempotency_keys" (
	"organization_id" text NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"response_status" integer NOT NULL,
	"response_headers" jsonb NOT NULL,
	"response_body" text,
	"response_body_encrypted" boolean NOT NULL,
	"request_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_organization_id_scope_key_pk" PRIMARY KEY("organization_id","scope","key")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");