CREATE TABLE "member_sessions" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"member_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"environment" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "member_sessions_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "member_sessions_token_hash_key" ON "member_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "member_sessions_member_idx" ON "member_sessions" USING btree ("organization_id","member_id");--> statement-breakpoint
CREATE INDEX "member_sessions_expires_at_idx" ON "member_sessions" USING btree ("expires_at");