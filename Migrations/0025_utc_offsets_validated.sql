-- 0024's CHECK (one form of a check-in's UTC offsets, never both, never neither) validated for the
-- rows written before it: a scan of each month under SHARE UPDATE EXCLUSIVE, which lets reads,
-- ingest and the worker go on meanwhile.
ALTER TABLE checkins VALIDATE CONSTRAINT checkins_utc_offsets;
