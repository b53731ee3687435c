CREATE TABLE "handoffs" (
	"organization_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"environment" text NOT NULL,
	"channel_id" text NOT NULL,
	"subject_pseudonym" text NOT NULL,
	"from_origin" text NOT NULL,
	"target_origin" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"redeemed_at" timestamp with time zone,
	"redeemed_pseudonym" text,
	"handed_event_id" text,
	CONSTRAINT "handoffs_organization_id_token_hash_pk" PRIMARY KEY("organization_id","token_hash")
);
--> statement-breakpoint
CREATE INDEX "handoffs_redeemed_idx" ON "handoffs" USING btree ("organization_id","channel_id","redeemed_pseudonym","redeemed_at") WHERE redeemed_pseudonym is not null;--> statement-breakpoint
CREATE INDEX "handoffs_expiry_idx" ON "handoffs" USING btree ("expires_at");