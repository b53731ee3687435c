CREATE TABLE "tcf_storage_disclosures" (
	"vendor_list_version" integer NOT NULL,
	"vendor_id" integer NOT NULL,
	"url" text NOT NULL,
	"body" jsonb,
	"error" text,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "tcf_storage_disclosures_vendor_list_version_vendor_id_pk" PRIMARY KEY("vendor_list_version","vendor_id")
);
