CREATE TABLE "ledger_keys" (
	"key_id" text PRIMARY KEY NOT NULL,
	"algorithm" text NOT NULL,
	"public_key" "bytea" NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_leaves" (
	"organization_id" text NOT NULL,
	"log_id" text NOT NULL,
	"leaf_index" bigint NOT NULL,
	"event_id" text NOT NULL,
	"leaf_hash" "bytea" NOT NULL,
	CONSTRAINT "ledger_leaves_organization_id_log_id_leaf_index_pk" PRIMARY KEY("organization_id","log_id","leaf_index")
);
--> statement-breakpoint
CREATE TABLE "ledger_logs" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"tree_size" bigint NOT NULL,
	"signed_size" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_logs_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "ledger_nodes" (
	"organization_id" text NOT NULL,
	"log_id" text NOT NULL,
	"level" smallint NOT NULL,
	"node_index" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "ledger_nodes_organization_id_log_id_level_node_index_pk" PRIMARY KEY("organization_id","log_id","level","node_index")
);
--> statement-breakpoint
CREATE TABLE "ledger_pending" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"event_id" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	"leaf_hash" text NOT NULL,
	CONSTRAINT "ledger_pending_organization_id_event_id_pk" PRIMARY KEY("organization_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "ledger_tree_heads" (
	"organization_id" text NOT NULL,
	"log_id" text NOT NULL,
	"tree_size" bigint NOT NULL,
	"root_hash" "bytea" NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"key_id" text NOT NULL,
	"signature" "bytea" NOT NULL,
	CONSTRAINT "ledger_tree_heads_organization_id_log_id_tree_size_pk" PRIMARY KEY("organization_id","log_id","tree_size")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_leaves_event_key" ON "ledger_leaves" USING btree ("organization_id","event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_logs_scope_key" ON "ledger_logs" USING btree ("organization_id","environment");--> statement-breakpoint
CREATE INDEX "ledger_pending_order_idx" ON "ledger_pending" USING btree ("organization_id","environment","recorded_at","event_id");