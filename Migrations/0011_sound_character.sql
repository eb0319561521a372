-- What kind of loud (issue 16, parts 3 and 4; docs/ARCHITECTURE.md, "Sound character").
--
-- A v2 check-in may carry per second its LCeq and Z-weighted third-octave band levels (dBFS).
-- They are stored like the levels, one array per check-in, as 0.1 dB integers (smallint, 2 bytes
-- a value, exact at the precision phones meter to): a 5-minute check-in with 10 bands costs about
-- 6.6 kB more. NULL when the check-in carries none (every v1 check-in, every one without them).
--
-- * lceq_ddb: one LCeq a sample (−2000 … 200 = −200 … 20 dBFS).
-- * band_indexes: which of the 24 bands 50 Hz … 10 kHz (0 = 50 Hz, 23 = 10 kHz, ascending, at
--   least one) every sample of the check-in carries; a check-in has one set for all its samples.
-- * bands_ddb: the band levels, sample-major: sample i's band j is element
--   i · cardinality(band_indexes) + j + 1.
ALTER TABLE checkins
    ADD COLUMN lceq_ddb smallint[],
    ADD COLUMN band_indexes smallint[],
    ADD COLUMN bands_ddb smallint[],
    ADD CONSTRAINT checkins_lceq_cardinality CHECK (lceq_ddb IS NULL OR cardinality(lceq_ddb) = sample_count),
    ADD CONSTRAINT checkins_bands_together CHECK ((band_indexes IS NULL) = (bands_ddb IS NULL)),
    ADD CONSTRAINT checkins_bands_cardinality CHECK (
        band_indexes IS NULL
        OR (cardinality(band_indexes) BETWEEN 1 AND 24
            AND 0 <= ALL (band_indexes) AND 23 >= ALL (band_indexes)
            AND cardinality(bands_ddb) = sample_count * cardinality(band_indexes))),
    -- Only v2 carries them: the 2013 client has no such data, and the meter's source writes none.
    ADD CONSTRAINT checkins_spectra_v2_only CHECK (source = 'v2' OR (lceq_ddb IS NULL AND band_indexes IS NULL));

-- What cleaning found of the character of one check-in's piece of an hour, over the seconds it
-- kept (the same mask as the levels), stored once with the cleaning like the piece's L90; NULL
-- when the check-in carries neither LCeq nor bands.
--
-- * character_class_seconds: kept seconds in windows of each label, in the order babble, music,
--   bass_heavy_music, steady_noise, quiet, uncertain (SoundClass in LoudnessCore).
-- * character_la_ddb: every kept second's level (`average`, the second's LAeq), 0.1 dB, sorted;
--   the cell's LA90 pools these over its check-ins, each with its device's offset.
-- * character_lc_minus_la_ddb: every kept second's LC − LA, 0.1 dB, sorted; NULL without LCeq.
ALTER TABLE checkin_hours
    ADD COLUMN character_class_seconds smallint[],
    ADD COLUMN character_la_ddb smallint[],
    ADD COLUMN character_lc_minus_la_ddb smallint[],
    ADD CONSTRAINT checkin_hours_character_together CHECK (
        (character_class_seconds IS NULL) = (character_la_ddb IS NULL)
        AND (character_lc_minus_la_ddb IS NULL OR character_la_ddb IS NOT NULL)),
    ADD CONSTRAINT checkin_hours_character_cardinality CHECK (
        character_class_seconds IS NULL
        OR (cardinality(character_class_seconds) = 6
            AND cardinality(character_la_ddb) = valid_seconds
            AND (character_lc_minus_la_ddb IS NULL OR cardinality(character_lc_minus_la_ddb) = valid_seconds)));

-- A measured cell's character, when its counted check-ins that carry the data give at least
-- 60 kept seconds from at least 2 check-ins (CellCharacter in LoudnessCore); NULL otherwise, and
-- always for an estimate. The conversation band is not stored: it follows from the cell's
-- calibrated level on read, as its label does.
--
-- * character_seconds: the seconds behind it; character_checkins: the check-ins.
-- * character_class_seconds: seconds per label, in the order of checkin_hours' (shares on read).
-- * character_lc_minus_la_db: the median of the seconds' LC − LA, dB; NULL when none had LCeq.
-- * character_la90_dbfs: the level exceeded by 90 % of the seconds, model-corrected dBFS like
--   level_dbfs (readers add the reference offset).
ALTER TABLE loudness_cells
    ADD COLUMN character_seconds integer,
    ADD COLUMN character_checkins integer,
    ADD COLUMN character_class_seconds integer[],
    ADD COLUMN character_lc_minus_la_db real,
    ADD COLUMN character_la90_dbfs real,
    ADD CONSTRAINT loudness_cells_character CHECK (
        CASE WHEN character_seconds IS NULL
            THEN character_checkins IS NULL AND character_class_seconds IS NULL
                 AND character_lc_minus_la_db IS NULL AND character_la90_dbfs IS NULL
            ELSE NOT estimated AND character_seconds >= 1 AND character_checkins >= 1
                 AND cardinality(character_class_seconds) = 6 AND character_la90_dbfs IS NOT NULL END);
