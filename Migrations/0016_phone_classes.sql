-- The phone's own classes (issue 27; docs/ARCHITECTURE.md, "The phone's own classes").
--
-- A v2 check-in may carry what the phone's own sound classifier heard: the classifier (name,
-- version), the vocabulary of its labels (AudioSet display names or Apple SoundAnalysis
-- identifiers) and windows of the check-in, each with up to 5 top labels and their confidences.
-- Stored in `checkins` beside the samples, one array per check-in like them (no row per window:
-- ingest stays one INSERT, erasing a device's check-ins erases its classes, and the aggregation
-- worker reads them with the samples it already reads):
--
-- * classes_classifier, classes_classifier_version, classes_vocabulary: what named the labels;
--   all three or none. They stay after the retention (a few bytes; they say what a stored
--   piece's classes rested on).
-- * class_window_offsets_s: each window's first second after the check-in's first sample
--   (ascending, not overlapping); class_window_seconds: its length.
-- * class_window_classes: the class HearClear's table (SoundLabelMapping in LoudnessCore) gave the
--   window at receipt, as the position in SoundClass.allCases (0 babble, 1 music,
--   2 bass_heavy_music, 3 steady_noise, 4 quiet, 5 uncertain): all pooling reads, 2 bytes a window.
-- * class_top_counts: how many labels each window has (1 … 5); class_top_labels and
--   class_top_permille: those labels and their confidences in per mille (0 … 1000), window after
--   window. Kept so that an admin sees what the phone said, and so that a change of the table can
--   be applied to stored check-ins; per mille is the precision classifiers' scores mean anything to.
--
-- A 5-minute check-in with 30 windows of 10 s and 3 labels each costs about 0.6 kB. None of it is
-- personal beyond what its check-in already is (labels of sound classes, never audio), and the
-- exports carry none of it. The retention (0015) removes the windows with the samples: they serve
-- cleaning, which is then stored.
ALTER TABLE checkins
    ADD COLUMN classes_classifier text,
    ADD COLUMN classes_classifier_version text,
    ADD COLUMN classes_vocabulary text,
    ADD COLUMN class_window_offsets_s integer[],
    ADD COLUMN class_window_seconds smallint[],
    ADD COLUMN class_window_classes smallint[],
    ADD COLUMN class_top_counts smallint[],
    ADD COLUMN class_top_labels text[],
    ADD COLUMN class_top_permille smallint[],
    ADD CONSTRAINT checkins_classes_classifier CHECK (
        (classes_classifier IS NULL) = (classes_classifier_version IS NULL)
        AND (classes_classifier IS NULL) = (classes_vocabulary IS NULL)
        AND (classes_classifier IS NULL OR (
            char_length(classes_classifier) BETWEEN 1 AND 64
            AND char_length(classes_classifier_version) BETWEEN 1 AND 32
            AND classes_vocabulary IN ('audioset', 'soundanalysis')))),
    ADD CONSTRAINT checkins_class_windows CHECK (
        (class_window_offsets_s IS NULL) = (class_window_seconds IS NULL)
        AND (class_window_offsets_s IS NULL) = (class_window_classes IS NULL)
        AND (class_window_offsets_s IS NULL) = (class_top_counts IS NULL)
        AND (class_window_offsets_s IS NULL) = (class_top_labels IS NULL)
        AND (class_window_offsets_s IS NULL) = (class_top_permille IS NULL)
        -- Windows only with a classifier; a classifier without windows only past the retention.
        AND (class_window_offsets_s IS NULL OR classes_classifier IS NOT NULL)
        AND (class_window_offsets_s IS NOT NULL OR classes_classifier IS NULL OR samples_removed_at IS NOT NULL)
        AND (class_window_offsets_s IS NULL OR (
            cardinality(class_window_offsets_s) BETWEEN 1 AND sample_count
            AND cardinality(class_window_seconds) = cardinality(class_window_offsets_s)
            AND cardinality(class_window_classes) = cardinality(class_window_offsets_s)
            AND cardinality(class_top_counts) = cardinality(class_window_offsets_s)
            AND cardinality(class_top_permille) = cardinality(class_top_labels)
            AND 0 <= ALL (class_window_classes) AND 5 >= ALL (class_window_classes)
            AND 0 <= ALL (class_top_permille) AND 1000 >= ALL (class_top_permille)))),
    -- Only v2 carries them, as the spectra.
    ADD CONSTRAINT checkins_classes_v2_only CHECK (source = 'v2' OR classes_classifier IS NULL),
    DROP CONSTRAINT checkins_samples_removed,
    ADD CONSTRAINT checkins_samples_removed CHECK (
        samples_removed_at IS NULL
        OR (cardinality(offsets_s) = 0 AND cardinality(average_dbfs) = 0 AND cardinality(peak_dbfs) = 0
            AND lceq_ddb IS NULL AND band_indexes IS NULL AND bands_ddb IS NULL
            AND class_window_offsets_s IS NULL AND cleaned_at IS NOT NULL));

-- Of a piece's kept seconds with a character, those whose class the phone's own classes gave
-- (PieceCharacter.phoneSeconds); the rest the spectra rules gave. NULL without a character, and
-- in rows of before this migration, read as 0: every piece stored before rests on the spectra
-- rules alone, and no row is rewritten.
ALTER TABLE checkin_hours
    ADD COLUMN character_phone_seconds integer,
    ADD CONSTRAINT checkin_hours_character_phone_seconds CHECK (
        character_phone_seconds IS NULL
        OR (character_class_seconds IS NOT NULL AND character_phone_seconds BETWEEN 0 AND valid_seconds));

-- The same, pooled over a cell's pieces (CellCharacter.phoneSeconds; NULL as in checkin_hours): the
-- cell's `basis` on read is `phone classes` when it is all of character_seconds, `spectra rules`
-- when 0 or NULL, else `both`.
ALTER TABLE loudness_cells
    ADD COLUMN character_phone_seconds integer,
    ADD CONSTRAINT loudness_cells_character_phone_seconds CHECK (
        character_phone_seconds IS NULL
        OR (character_seconds IS NOT NULL AND character_phone_seconds BETWEEN 0 AND character_seconds));
