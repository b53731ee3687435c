CREATE TABLE "ledger_forks" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"log_id" text NOT NULL,
	"signed_tree_size" bigint NOT NULL,
	"signed_root_hash" "bytea" NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"database_log_id" text,
	"database_tree_size" bigint NOT NULL,
	"detected_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	CONSTRAINT "ledger_forks_organization_id_log_id_signed_tree_size_pk" PRIMARY KEY("organization_id","log_id","signed_tree_size")
);
