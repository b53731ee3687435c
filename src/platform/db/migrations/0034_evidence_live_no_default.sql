-- The live side of evidence_events loses its DEFAULT partition (for evidence pages). With one,
-- PostgreSQL cannot read the months in order (a DEFAULT partition may hold any month), so a page
-- merged every month's index (Merge Append) and a filtered page sorted rows from each of them. Without
-- it the months are read newest first (an ordered Append) and a page stops in the month that fills it.
-- Every live insert then needs its month's partition: this migration makes the months of any event
-- waiting in the DEFAULT partition and the current month to three ahead; the service makes the current
-- and next months at start, the hourly job keeps three ahead, and a consent write that still finds
-- none (the job stopped for months) makes its month and is retried (src/modules/evidence/partitions.ts).
-- Test events keep their DEFAULT partition: they are made by the hour, two hours ahead only.
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
  -- Rows of that range waiting in a DEFAULT partition (test only, since this migration) move first.
  IF to_regclass('evidence_events_' || env || '_default') IS NOT NULL THEN
    EXECUTE format(
      'WITH moved AS (DELETE FROM %I WHERE recorded_at >= $1 AND recorded_at < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
      'evidence_events_' || env || '_default', part) USING lo, hi;
  END IF;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
    'evidence_events_' || env, part, lo, hi);
  RETURN part;
END
$$;
--> statement-breakpoint
DO $$
DECLARE
  m timestamptz;
BEGIN
  IF to_regclass('evidence_events_live_default') IS NULL THEN
    RETURN;
  END IF;
  FOR m IN SELECT DISTINCT date_trunc('month', recorded_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
      FROM evidence_events_live_default LOOP
    PERFORM evidence_partition_create('live', m);
  END LOOP;
  PERFORM evidence_partitions_ensure('live', now(), now() + interval '3 months');
  ALTER TABLE evidence_events_live DETACH PARTITION evidence_events_live_default;
  DROP TABLE evidence_events_live_default;
END
$$;
