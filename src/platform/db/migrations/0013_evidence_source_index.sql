-- GET /v1/evidence?source=… in list order (recorded_at, id): without it a rare source walked the
-- tenant's whole list index to fill one page. (On a large existing table, build it beforehand with
-- CREATE INDEX CONCURRENTLY under this name; IF NOT EXISTS then makes this a no-op.)
CREATE INDEX IF NOT EXISTS "evidence_events_source_idx" ON "evidence_events" USING btree ("organization_id","environment","source","recorded_at","id");
