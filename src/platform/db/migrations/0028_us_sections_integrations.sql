-- US state GPP sections (channels.gpp_sections: usnat | state) and Microsoft's consent signals
-- (channels.integrations); existing channels keep today's behaviour through the defaults.
ALTER TABLE "channels" ADD COLUMN "gpp_sections" text DEFAULT 'usnat' NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "integrations" jsonb DEFAULT '{"microsoftUet":false,"microsoftClarity":false}'::jsonb NOT NULL;
