-- What a succeeded scan could not see (a banner not found, refused hosts, findings cut off).
ALTER TABLE "scans" ADD COLUMN "warnings" jsonb DEFAULT '[]'::jsonb NOT NULL;
