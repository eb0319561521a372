-- Aggregation in batches, from the worker's memory (Aggregator, VenueStateCache).
--
-- A queue entry from ingest only adds check-ins (`checkins_only`). A worker that holds the venue's
-- judged state in memory then reads only the new check-ins (`cleaned_at IS NULL`) instead of the
-- venue's whole history. Every other entry (device exclusion, model offset, time zone change,
-- `hearclear recompute`) defaults to false and makes the worker read the venue again in full.
ALTER TABLE aggregation_queue ADD COLUMN checkins_only boolean NOT NULL DEFAULT false;

-- Raised by every write of a venue's judgement. A worker's memory of a venue is good only at the
-- version it wrote itself; another `serve` process's write, or an admin's direct recompute, makes
-- it read the venue in full.
ALTER TABLE venue_activity ADD COLUMN judgement_version bigint NOT NULL DEFAULT 0;

-- A check-in hour's `modified_z`, `residual_db` and `other_devices` move a little whenever a
-- check-in joins its venue (the pooled scale and the profile are the venue's). Rewriting every
-- row of a busy venue for each new check-in would make each check-in cost O(venue) row versions,
-- so a row is rewritten only when its judgement changes (counted, outlier, model offset, whether
-- other devices are there at all) or its z-score moves by 0.25 or more (0.05 where |z| ≥ 3, near
-- the outlier threshold) or its residual by 0.1 dB or more (AggregationResult.Hour.needsRewrite).
-- `other_devices` is the count at the row's last rewrite.
COMMENT ON COLUMN checkin_hours.other_devices IS
    'other devices in the cell at the row''s last rewrite; exact only in whether it is 0';

-- Indexes that others cover, paid for on every write: checkin_hours' primary key starts with
-- checkin_id; admin_devices_seen_idx (last_seen_at DESC, id DESC) serves every ordering by last
-- seen; no query orders devices by excluded_at.
DROP INDEX checkin_hours_checkin_idx;
DROP INDEX devices_last_seen_idx;
DROP INDEX devices_excluded_idx;
