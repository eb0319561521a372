-- The foreign keys of 0021 validated for the rows written before them: a scan of each table under
-- SHARE UPDATE EXCLUSIVE, which lets reads, ingest and the worker go on meanwhile.
ALTER TABLE checkin_hours VALIDATE CONSTRAINT checkin_hours_checkin_id_fkey;
ALTER TABLE checkin_overrides VALIDATE CONSTRAINT checkin_overrides_checkin_id_fkey;
