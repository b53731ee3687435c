ALTER TABLE "channels" ADD COLUMN "first_party_path" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "cookie_domain" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "cross_domain" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "imports" jsonb DEFAULT '[]'::jsonb NOT NULL;