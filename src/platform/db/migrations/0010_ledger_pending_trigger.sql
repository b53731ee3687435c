-- Every evidence event becomes a ledger leaf (docs/decisions/ledger.md). The queue of events to seal is
-- filled here, in the inserting transaction, so no insert path (the API, an import, a test) can skip it
-- and the sealer reads only new work.
CREATE FUNCTION ledger_pending_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_pending (organization_id, environment, event_id, recorded_at, leaf_hash)
  VALUES (NEW.organization_id, NEW.environment, NEW.id, NEW.recorded_at, NEW.receipt_hash);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER evidence_events_ledger_pending AFTER INSERT ON evidence_events
  FOR EACH ROW EXECUTE FUNCTION ledger_pending_enqueue();
--> statement-breakpoint
-- Events recorded before the ledger existed are sealed too, purged ones included (their receipt
-- hash survived the purge).
INSERT INTO ledger_pending (organization_id, environment, event_id, recorded_at, leaf_hash)
  SELECT organization_id, environment, id, recorded_at, receipt_hash FROM evidence_events;
