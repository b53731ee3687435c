-- US state GPP sections (channels.gpp_sections: usnat | state), Microsoft's consent signals
-- (channels.integrations), and whether the page showed that GPC was honoured
-- (evidence_events.gpc_honored_shown; null on every older event, whose canonical form lacks it).
ALTER TABLE "channels" ADD COLUMN "gpp_sections" text DEFAULT 'usnat' NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "integrations" jsonb DEFAULT '{"microsoftUet":false,"microsoftClarity":false}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence_events" ADD COLUMN "gpc_honored_shown" boolean;
