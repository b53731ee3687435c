-- evidence_events partitioned: by environment (LIST), then by time (RANGE on recorded_at),
-- test events by the hour, live ones by the month, each environment with a DEFAULT partition for an
-- event outside the partitions made so far. The 24-hour purge of test events and the retention of live
-- ones then drop whole partitions (src/modules/evidence/partitions.ts) instead of updating rows.
-- Written by hand (drizzle-kit does not express partitioning); the snapshot matches evidence.tables.ts:
-- the primary key gains the partition key (environment, recorded_at) and the source index becomes
-- partial (docs/guides/postgresql.md, "Indexes").
--
-- Columns are copied generically (LIKE … INCLUDING DEFAULTS), so a column added by an earlier migration
-- comes along. On a large table run scripts/evidence-partitions-online.sql first (while the previous
-- version serves): it builds evidence_events_next and copies it in batches, and this migration then
-- only copies what changed since and swaps the names in its one short transaction.

-- The partition of `env` holding `at`, made if missing (the hour for test, the month for live, in
-- UTC). Rows of that range waiting in the environment's DEFAULT partition move into it first, since
-- PostgreSQL refuses a partition whose rows sit in the DEFAULT one. Returns its name.
CREATE OR REPLACE FUNCTION evidence_partition_create(env text, at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  lo timestamptz;
  hi timestamptz;
  part text;
BEGIN
  IF env = 'test' THEN
    lo := date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    hi := lo + interval '1 hour';
    part := 'evidence_events_test_p' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMMDDHH24');
  ELSIF env = 'live' THEN
    lo := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    hi := ((lo AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    part := 'evidence_events_live_p' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMM');
  ELSE
    RAISE EXCEPTION 'unknown environment %', env;
  END IF;
  IF to_regclass(part) IS NOT NULL THEN
    RETURN part;
  END IF;
  -- Two workers making the same partition take turns (the second finds it made).
  PERFORM pg_advisory_xact_lock(7344210045);
  IF to_regclass(part) IS NOT NULL THEN
    RETURN part;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, 'evidence_events_' || env);
  EXECUTE format(
    'WITH moved AS (DELETE FROM %I WHERE recorded_at >= $1 AND recorded_at < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
    'evidence_events_' || env || '_default', part) USING lo, hi;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
    'evidence_events_' || env, part, lo, hi);
  RETURN part;
END
$$;
--> statement-breakpoint
-- Every partition of `env` from `from_at` to `to_at` (both included).
CREATE OR REPLACE FUNCTION evidence_partitions_ensure(env text, from_at timestamptz, to_at timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  step interval := CASE env WHEN 'test' THEN interval '1 hour' ELSE interval '1 month' END;
  at timestamptz := from_at;
BEGIN
  WHILE at <= to_at LOOP
    PERFORM evidence_partition_create(env, at);
    at := ((at AT TIME ZONE 'UTC') + step) AT TIME ZONE 'UTC';
  END LOOP;
  IF date_trunc(CASE env WHEN 'test' THEN 'hour' ELSE 'month' END, to_at AT TIME ZONE 'UTC')
      > date_trunc(CASE env WHEN 'test' THEN 'hour' ELSE 'month' END, (at - step) AT TIME ZONE 'UTC') THEN
    PERFORM evidence_partition_create(env, to_at);
  END IF;
END
$$;
--> statement-breakpoint
-- The empty partitioned table `evidence_events_next` shaped like evidence_events (all its columns, in
-- order, with their defaults), with its partitions around the present and around `oldest_live`.
-- Its key and indexes carry `_next` names until the swap renames them.
CREATE OR REPLACE FUNCTION evidence_partitions_stage(oldest_live timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('evidence_events_next') IS NOT NULL THEN
    RETURN;
  END IF;
  CREATE TABLE evidence_events_next (LIKE evidence_events INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS)
    PARTITION BY LIST (environment);
  CREATE TABLE evidence_events_test PARTITION OF evidence_events_next FOR VALUES IN ('test') PARTITION BY RANGE (recorded_at);
  CREATE TABLE evidence_events_live PARTITION OF evidence_events_next FOR VALUES IN ('live') PARTITION BY RANGE (recorded_at);
  CREATE TABLE evidence_events_test_default PARTITION OF evidence_events_test DEFAULT;
  CREATE TABLE evidence_events_live_default PARTITION OF evidence_events_live DEFAULT;
  ALTER TABLE evidence_events_next ADD CONSTRAINT evidence_events_next_pk
    PRIMARY KEY (organization_id, id, environment, recorded_at);
  CREATE INDEX evidence_events_next_list_idx ON evidence_events_next USING btree (organization_id, environment, recorded_at, id);
  CREATE INDEX evidence_events_next_channel_idx ON evidence_events_next USING btree (organization_id, environment, channel_id, recorded_at, id);
  CREATE INDEX evidence_events_next_source_idx ON evidence_events_next USING btree (organization_id, environment, source, recorded_at, id) WHERE source <> 'banner';
  CREATE INDEX evidence_events_next_region_idx ON evidence_events_next USING btree (organization_id, environment, region, recorded_at, id);
  CREATE INDEX evidence_events_next_subject_idx ON evidence_events_next USING btree (organization_id, environment, subject_pseudonym, recorded_at, id) WHERE subject_pseudonym is not null;
  CREATE INDEX evidence_events_next_retention_idx ON evidence_events_next USING btree (environment, recorded_at) WHERE purged_at is null;
  -- Test events are kept a day: the hours of the last day that hold events, to two hours ahead. Live
  -- ones from the oldest event's month to three months ahead. The worker keeps both ahead (partitions.ts).
  PERFORM evidence_partitions_ensure('test', least(now() - interval '1 hour', coalesce((SELECT min(recorded_at)
    FROM evidence_events WHERE environment = 'test' AND recorded_at > now() - interval '25 hours'), now())),
    now() + interval '2 hours');
  PERFORM evidence_partitions_ensure('live', least(coalesce(oldest_live, now()), now()), now() + interval '3 months');
  -- What changes in evidence_events from now on is noted, for the swap to copy again.
  CREATE TABLE evidence_events_changed (organization_id text NOT NULL, id text NOT NULL);
  CREATE TABLE evidence_events_copied (after_organization_id text, after_id text);
  INSERT INTO evidence_events_copied VALUES (NULL, NULL);
  CREATE FUNCTION evidence_events_note_changed() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      INSERT INTO evidence_events_changed SELECT organization_id, id FROM gone_rows;
    ELSE
      INSERT INTO evidence_events_changed SELECT organization_id, id FROM new_rows;
    END IF;
    RETURN NULL;
  END
  $f$;
  CREATE TRIGGER evidence_events_note_inserted AFTER INSERT ON evidence_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION evidence_events_note_changed();
  CREATE TRIGGER evidence_events_note_updated AFTER UPDATE ON evidence_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION evidence_events_note_changed();
  CREATE TRIGGER evidence_events_note_deleted AFTER DELETE ON evidence_events
    REFERENCING OLD TABLE AS gone_rows FOR EACH STATEMENT EXECUTE FUNCTION evidence_events_note_changed();
END
$$;
--> statement-breakpoint
-- Copies the next `batch` events (in primary-key order) into evidence_events_next; returns how many.
CREATE OR REPLACE FUNCTION evidence_partitions_copy_batch(batch integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  after_org text;
  after_key text;
  last_org text;
  last_key text;
  n integer;
BEGIN
  SELECT after_organization_id, after_id INTO after_org, after_key FROM evidence_events_copied FOR UPDATE;
  WITH batch_rows AS MATERIALIZED (
    SELECT * FROM evidence_events
    WHERE after_key IS NULL OR (organization_id, id) > (after_org, after_key)
    ORDER BY organization_id, id LIMIT batch
  ),
  copied AS (
    INSERT INTO evidence_events_next SELECT * FROM batch_rows ON CONFLICT DO NOTHING RETURNING 1
  )
  SELECT count(*), (array_agg(organization_id ORDER BY organization_id DESC, id DESC))[1],
    (array_agg(id ORDER BY organization_id DESC, id DESC))[1]
  FROM batch_rows INTO n, last_org, last_key;
  IF n > 0 THEN
    UPDATE evidence_events_copied SET after_organization_id = last_org, after_id = last_key;
  END IF;
  RETURN n;
END
$$;
--> statement-breakpoint
-- The swap, in the migration's transaction: writes wait (reads go on) while the rest is copied, the
-- changed events are copied again, and the names move.
CREATE OR REPLACE FUNCTION evidence_partitions_swap() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  idx text;
BEGIN
  LOCK TABLE evidence_events IN EXCLUSIVE MODE;
  WHILE evidence_partitions_copy_batch(100000) > 0 LOOP
  END LOOP;
  CREATE TEMP TABLE evidence_events_redo ON COMMIT DROP AS SELECT DISTINCT organization_id, id FROM evidence_events_changed;
  DELETE FROM evidence_events_next n USING evidence_events_redo r WHERE n.organization_id = r.organization_id AND n.id = r.id;
  INSERT INTO evidence_events_next SELECT e.* FROM evidence_events e
    JOIN evidence_events_redo r ON r.organization_id = e.organization_id AND r.id = e.id;
  ALTER SEQUENCE evidence_events_seq OWNED BY NONE;
  DROP TABLE evidence_events;
  DROP FUNCTION evidence_events_note_changed();
  DROP TABLE evidence_events_changed;
  DROP TABLE evidence_events_copied;
  ALTER TABLE evidence_events_next RENAME TO evidence_events;
  ALTER TABLE evidence_events RENAME CONSTRAINT evidence_events_next_pk TO evidence_events_organization_id_id_environment_recorded_at_pk;
  FOREACH idx IN ARRAY ARRAY['list', 'channel', 'source', 'region', 'subject', 'retention'] LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', 'evidence_events_next_' || idx || '_idx', 'evidence_events_' || idx || '_idx');
  END LOOP;
  ALTER SEQUENCE evidence_events_seq OWNED BY evidence_events.seq;
  -- Created after the copy, so that events already queued or sealed are not queued again.
  CREATE TRIGGER evidence_events_ledger_pending AFTER INSERT ON evidence_events
    REFERENCING NEW TABLE AS inserted_events
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_pending_enqueue_inserted();
END
$$;
--> statement-breakpoint
-- END OF FUNCTIONS (scripts/evidence-partitions-online.sh runs the statements above, then stages and copies)
DO $$
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'evidence_events'::regclass) <> 'p' THEN
    PERFORM evidence_partitions_stage((SELECT min(recorded_at) FROM evidence_events WHERE environment = 'live'));
    PERFORM evidence_partitions_swap();
  END IF;
  DROP FUNCTION evidence_partitions_swap();
  DROP FUNCTION evidence_partitions_copy_batch(integer);
  DROP FUNCTION evidence_partitions_stage(timestamptz);
END
$$;
