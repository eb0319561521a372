-- Compact samples (issue 29, part 1; docs/ARCHITECTURE.md, "Sample storage").
--
-- A check-in's per-second samples move from six arrays (`offsets_s` integer[], `average_dbfs` and
-- `peak_dbfs` real[], `lceq_ddb`, `band_indexes` and `bands_ddb` smallint[]) to one bytea,
-- `samples`, in the encoding of SampleCodec (HearClearStore/Checkins/Samples): offsets only where
-- they are not 0, 1, 2 …, levels as bit-packed steps of a 0.1 or 0.01 dB grid, LCeq and bands as
-- bit-packed differences. It is lossless: every value comes back with the bits it was stored
-- with (a level on no grid, such as a v1 amplitude's dBFS, is kept as its 4 bytes). A 5-minute
-- check-in at 0.1 dB takes about 1.8 bytes a sample instead of 12. `utc_offsets_min` stays as it
-- is (already one value unless the offset changes). NULL once the retention removed the samples.
--
-- This file only adds the column and lets the old arrays be NULL: metadata, no rewrite, no wait.
-- Before 0018 the migration runner rewrites the existing check-ins in batches of 1,000, each its
-- own short transaction (SampleArraysCompaction): it encodes their arrays into `samples` and sets
-- the arrays to NULL, so that each new row version is compact. 0018 then rewrites, with the
-- table locked against writes, whatever a server of before this migration wrote meanwhile, and
-- drops the arrays; 0019 validates its CHECKs. Stop servers of before 0017 first: they cannot
-- read the rewritten rows.
ALTER TABLE checkins
    ADD COLUMN samples bytea,
    ALTER COLUMN offsets_s DROP NOT NULL,
    ALTER COLUMN average_dbfs DROP NOT NULL,
    ALTER COLUMN peak_dbfs DROP NOT NULL;
