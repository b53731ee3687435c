-- The ledger queue filled once per INSERT statement instead of once per row: consent writes are
-- group-committed as one multi-row INSERT (bench b), and the row trigger cost a PL/pgSQL call and a
-- one-row INSERT per event. Same rows, in the same transaction, from every insert path.
CREATE FUNCTION ledger_pending_enqueue_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_pending (organization_id, environment, event_id, recorded_at, leaf_hash)
  SELECT organization_id, environment, id, recorded_at, receipt_hash FROM inserted_events;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER evidence_events_ledger_pending ON evidence_events;
--> statement-breakpoint
CREATE TRIGGER evidence_events_ledger_pending AFTER INSERT ON evidence_events
  REFERENCING NEW TABLE AS inserted_events
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_pending_enqueue_inserted();
--> statement-breakpoint
DROP FUNCTION ledger_pending_enqueue();
