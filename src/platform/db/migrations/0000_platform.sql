CREATE TABLE "service_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" "bytea" NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"member_id" text NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"secret_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "audit_logs" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"action" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"target_type" text,
	"target_id" text,
	"request_id" text,
	"ip_prefix" text,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "audit_logs_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "members" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "members_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"pseudonym_secret" "bytea" NOT NULL,
	"rate_limit_per_minute" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "api_keys_list_idx" ON "api_keys" USING btree ("organization_id","environment","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_logs_list_idx" ON "audit_logs" USING btree ("organization_id","environment","occurred_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_organization_email_key" ON "members" USING btree ("organization_id","email");