CREATE TABLE "exports" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"status" text NOT NULL,
	"format" text NOT NULL,
	"channel_id" text,
	"from_at" timestamp with time zone,
	"to_at" timestamp with time zone,
	"include_proofs" boolean NOT NULL,
	"requested_by" text,
	"row_count" integer,
	"byte_size" bigint,
	"sha256" text,
	"file_key" text,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"failure_reason" text,
	CONSTRAINT "exports_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "exports_list_idx" ON "exports" USING btree ("organization_id","environment","created_at","id");--> statement-breakpoint
CREATE INDEX "exports_active_idx" ON "exports" USING btree ("organization_id") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "exports_expiry_idx" ON "exports" USING btree ("expires_at") WHERE status = 'succeeded';