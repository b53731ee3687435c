-- Round robin between organizations: when each (job kind, organization) last got a worker slot, in
-- one order across workers (job_turns_seq). A free slot goes to the group whose turn is oldest.
CREATE SEQUENCE "public"."job_turns_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "job_turns" (
	"kind" text NOT NULL,
	"group_key" text NOT NULL,
	"turn" bigint NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "job_turns_kind_group_key_pk" PRIMARY KEY("kind","group_key")
);
--> statement-breakpoint
CREATE INDEX "job_turns_claimed_idx" ON "job_turns" USING btree ("claimed_at");
