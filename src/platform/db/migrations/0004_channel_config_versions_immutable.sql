-- A config version is evidence of what visitors were shown: once written it never changes.
-- Deletes stay possible (a future organization erasure); updates are refused by the database itself.
CREATE FUNCTION channel_config_versions_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'channel_config_versions rows are immutable' USING ERRCODE = '55000';
END
$$;
--> statement-breakpoint
CREATE TRIGGER channel_config_versions_immutable BEFORE UPDATE ON channel_config_versions
  FOR EACH ROW EXECUTE FUNCTION channel_config_versions_refuse_update();
