-- Incremental aggregation: cleaning a check-in depends only on its own samples and the venue's
-- clock, so the worker cleans each check-in once and keeps what it found (the exclusion here,
-- valid_seconds and level_dbfs in checkins, the hour statistics in checkin_hours). A venue is
-- then re-judged from those summaries; raw samples are read only for check-ins whose
-- `cleaned_at` is NULL (new ones, or all of a venue after its time zone changes or after
-- `hearclear recompute`, which clears it).
ALTER TABLE checkins
    ADD COLUMN cleaned_at timestamptz,
    ADD COLUMN clean_exclusion text;
CREATE INDEX checkins_venue_uncleaned_idx ON checkins (venue_id) WHERE cleaned_at IS NULL;
CREATE INDEX checkin_hours_checkin_idx ON checkin_hours (checkin_id);
