-- The per-second arrays of before 0017 dropped; `samples` holds them all (see 0017).
--
-- Before this file the migration runner rewrote every check-in of before 0017 in batches; in this
-- file's transaction, before these statements, it locked `checkins` against writes (reads go on)
-- and rewrote those written since. Dropping a column rewrites nothing, and the CHECKs are added
-- NOT VALID (they hold for every row written from now on): nothing here reads the table, so the
-- lock lasts milliseconds. 0019 validates them for the existing rows without blocking anyone.
ALTER TABLE checkins
    DROP CONSTRAINT checkins_samples_cardinality,
    DROP CONSTRAINT checkins_samples_removed,
    DROP CONSTRAINT checkins_lceq_cardinality,
    DROP CONSTRAINT checkins_bands_together,
    DROP CONSTRAINT checkins_bands_cardinality,
    DROP CONSTRAINT checkins_spectra_v2_only,
    DROP COLUMN offsets_s,
    DROP COLUMN average_dbfs,
    DROP COLUMN peak_dbfs,
    DROP COLUMN lceq_ddb,
    DROP COLUMN band_indexes,
    DROP COLUMN bands_ddb,
    -- Samples until the retention removes them (0015), then none, nor the class windows (0016).
    ADD CONSTRAINT checkins_samples_kept CHECK ((samples IS NULL) = (samples_removed_at IS NOT NULL)) NOT VALID,
    ADD CONSTRAINT checkins_samples_removed CHECK (
        samples_removed_at IS NULL OR (class_window_offsets_s IS NULL AND cleaned_at IS NOT NULL)) NOT VALID,
    -- SampleCodec's version 1; its flags (second byte) 2 (LCeq) and 4 (bands) only in v2 check-ins,
    -- as before: the 2013 client has no spectra, and the meter's source writes none.
    ADD CONSTRAINT checkins_samples_encoding CHECK (
        samples IS NULL
        OR (octet_length(samples) >= 5 AND get_byte(samples, 0) = 1
            AND (source = 'v2' OR get_byte(samples, 1) & 6 = 0))) NOT VALID;
