-- The worker finds a venue's new check-ins by the keys ingest queues with it, no longer through
-- `checkins_venue_uncleaned_idx` (venue_id WHERE cleaned_at IS NULL). The judgement's first
-- update of a check-in sets `cleaned_at`; while an index filtered on it, that update could not be
-- HOT and wrote a new entry in every index of `checkins` (the simulated city: 3 % of updates were
-- HOT, 67 % without it). Now no index of `checkins` names a column the judgement sets
-- (`CheckinQueryPlanTests` checks that).
--
-- An entry from ingest names the check-in it added (`checkin_id`, `checkin_started_at`, so the
-- read touches one month's partition); `rejudge` marks a venue queued to be judged again with
-- nothing of its own added (a neighbour's levels moved). A `checkins_only` entry with neither (an
-- older server's ingest, or one queued before this migration) has its venue read in full, so a
-- server of before 0023 still running loses no check-in.
ALTER TABLE aggregation_queue
    ADD COLUMN checkin_id uuid,
    ADD COLUMN checkin_started_at timestamptz,
    ADD COLUMN rejudge boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT aggregation_queue_checkin CHECK (
        (checkin_id IS NULL) = (checkin_started_at IS NULL)
        AND (checkin_id IS NULL OR checkins_only) AND NOT (rejudge AND (checkin_id IS NOT NULL OR NOT checkins_only)));

DROP INDEX checkins_venue_uncleaned_idx;
