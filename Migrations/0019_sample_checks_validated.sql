-- The CHECKs of 0018 validated for the rows written before them: one scan of the (compact) table
-- under SHARE UPDATE EXCLUSIVE, which lets reads, ingest and the worker go on meanwhile.
ALTER TABLE checkins VALIDATE CONSTRAINT checkins_samples_kept;
ALTER TABLE checkins VALIDATE CONSTRAINT checkins_samples_removed;
ALTER TABLE checkins VALIDATE CONSTRAINT checkins_samples_encoding;
