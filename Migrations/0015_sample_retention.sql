-- Raw samples kept only as long as they serve (docs/PRIVACY.md, docs/ARCHITECTURE.md "Privacy"):
-- with `--raw-retention-days N`, a check-in received more than N days ago whose cleaning is stored
-- loses its per-second arrays (`offsets_s`, `average_dbfs`, `peak_dbfs`, `lceq_ddb`, `band_indexes`,
-- `bands_ddb`), keeping its judgement, its `checkin_hours` (the stored cleaning, with its sound
-- character) and `sample_count`. `samples_removed_at` says when; such a check-in is never cleaned
-- again (a recompute keeps its stored cleaning), since nothing is left to clean.
ALTER TABLE checkins ADD COLUMN samples_removed_at timestamptz;
ALTER TABLE checkins
    DROP CONSTRAINT checkins_check,
    DROP CONSTRAINT checkins_check1,
    DROP CONSTRAINT checkins_check2,
    ADD CONSTRAINT checkins_samples_cardinality CHECK (
        samples_removed_at IS NOT NULL
        OR (cardinality(offsets_s) = sample_count AND cardinality(average_dbfs) = sample_count
            AND cardinality(peak_dbfs) = sample_count)),
    ADD CONSTRAINT checkins_samples_removed CHECK (
        samples_removed_at IS NULL
        OR (cardinality(offsets_s) = 0 AND cardinality(average_dbfs) = 0 AND cardinality(peak_dbfs) = 0
            AND lceq_ddb IS NULL AND band_indexes IS NULL AND bands_ddb IS NULL AND cleaned_at IS NOT NULL));
