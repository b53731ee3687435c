CREATE TABLE "webhook_attempts" (
	"organization_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"number" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"response_status" integer,
	"duration_ms" integer NOT NULL,
	"error" text,
	CONSTRAINT "webhook_attempts_organization_id_delivery_id_number_pk" PRIMARY KEY("organization_id","delivery_id","number")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"destination_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"status" text NOT NULL,
	"attempt_count" integer NOT NULL,
	"round_start_attempt" integer NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"last_response_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_destinations" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"event_types" text[] NOT NULL,
	"status" text NOT NULL,
	"disabled_reason" text,
	"secret_ciphertext" text NOT NULL,
	"previous_secret_ciphertext" text,
	"previous_secret_expires_at" timestamp with time zone,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_destinations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_events_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_list_idx" ON "webhook_deliveries" USING btree ("organization_id","environment","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_destination_idx" ON "webhook_deliveries" USING btree ("organization_id","destination_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_parked_idx" ON "webhook_deliveries" USING btree ("organization_id","destination_id") WHERE status = 'pending' and next_attempt_at is null;--> statement-breakpoint
CREATE INDEX "webhook_destinations_list_idx" ON "webhook_destinations" USING btree ("organization_id","environment","created_at","id");