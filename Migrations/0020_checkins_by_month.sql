-- Check-ins partitioned by the UTC month of `started_at` (PostgreSQL's declarative partitioning):
-- a month's rows, and their indexes, are one table `checkins_YYYY_MM`, which an archive can
-- detach and a retention can drop whole instead of deleting rows, and each index stays the size
-- of a month.
--
-- A partitioned table's unique keys must hold its partition key, so `checkins` is keyed by
-- (id, started_at) and no longer says alone that an id is used once. `checkin_ids` does: one row
-- per check-in id, which ingest inserts first (ON CONFLICT DO NOTHING) in the statement that
-- stores the check-in, so a resend is caught whatever `started_at` it carries, and two requests
-- with one id race on its primary key as they did on `checkins`'. It is also what a check-in's
-- hours and an admin's decision on it reference, and what erasure deletes (cascading to the rest).
-- An id outlives a dropped partition: a resend of an archived check-in is still no new check-in.
--
-- Partitions are made by `checkins_partition(instant)` for the month of `instant`: here for every month
-- the existing rows have and the months around now, later ahead of time by the server
-- (`CheckinPartitions`), and by ingest itself when a check-in falls in a month that has none.
--
-- The existing rows are copied in this transaction, under an exclusive lock on the table
-- (about 13 s a million check-ins on a shared 2-core machine: docs/ARCHITECTURE.md).
CREATE TABLE checkin_ids (id uuid PRIMARY KEY);
INSERT INTO checkin_ids (id) SELECT id FROM checkins;

ALTER TABLE checkin_hours DROP CONSTRAINT checkin_hours_checkin_id_fkey;
ALTER TABLE checkin_overrides DROP CONSTRAINT checkin_overrides_checkin_id_fkey;

ALTER TABLE checkins RENAME TO checkins_unpartitioned;
CREATE TABLE checkins (
    LIKE checkins_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS
) PARTITION BY RANGE (started_at);

-- The partition of the UTC month of `instant`, made when missing. Serialised by an advisory lock, so
-- two sessions asking for one new month at once both get it.
CREATE FUNCTION checkins_partition(instant timestamptz) RETURNS regclass
LANGUAGE plpgsql AS $$
DECLARE
    first_day timestamp := date_trunc('month', instant AT TIME ZONE 'UTC');
    partition_name text := 'checkins_' || to_char(first_day, 'YYYY_MM');
BEGIN
    IF to_regclass(partition_name) IS NOT NULL THEN
        RETURN partition_name::regclass;
    END IF;
    -- "HCPART" in ASCII.
    PERFORM pg_advisory_xact_lock(x'484350415254'::bigint);
    IF to_regclass(partition_name) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF checkins FOR VALUES FROM (%L) TO (%L)', partition_name,
                       first_day AT TIME ZONE 'UTC', (first_day + interval '1 month') AT TIME ZONE 'UTC');
    END IF;
    RETURN partition_name::regclass;
END $$;

-- The partitions of every month from `first_at`'s to `last_at`'s; how many were made.
CREATE FUNCTION checkins_partitions(first_at timestamptz, last_at timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    month timestamp := date_trunc('month', first_at AT TIME ZONE 'UTC');
    made integer := 0;
BEGIN
    WHILE month <= last_at AT TIME ZONE 'UTC' LOOP
        IF to_regclass('checkins_' || to_char(month, 'YYYY_MM')) IS NULL THEN
            PERFORM checkins_partition(month AT TIME ZONE 'UTC');
            made := made + 1;
        END IF;
        month := month + interval '1 month';
    END LOOP;
    RETURN made;
END $$;

SELECT checkins_partition(m AT TIME ZONE 'UTC')
FROM (SELECT DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC') AS m FROM checkins_unpartitioned) months;
SELECT checkins_partitions(now() - interval '1 month', now() + interval '2 months');

INSERT INTO checkins SELECT * FROM checkins_unpartitioned;
DROP TABLE checkins_unpartitioned;

-- The indexes of before, built on each partition after the copy.
ALTER TABLE checkins ADD CONSTRAINT checkins_pkey PRIMARY KEY (id, started_at);
CREATE INDEX checkins_device_started_idx ON checkins (device_id, started_at DESC);
CREATE INDEX checkins_received_idx ON checkins (received_at DESC);
CREATE INDEX checkins_status_idx ON checkins (status, received_at DESC) WHERE status <> 'included';
CREATE INDEX checkins_venue_started_idx ON checkins (venue_id, started_at DESC);
CREATE INDEX checkins_venue_uncleaned_idx ON checkins (venue_id) WHERE cleaned_at IS NULL;

ALTER TABLE checkins
    ADD CONSTRAINT checkins_id_fkey FOREIGN KEY (id) REFERENCES checkin_ids (id) ON DELETE CASCADE,
    ADD CONSTRAINT checkins_venue_id_fkey FOREIGN KEY (venue_id) REFERENCES venues (id),
    ADD CONSTRAINT checkins_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices (id);
ALTER TABLE checkin_hours ADD CONSTRAINT checkin_hours_checkin_id_fkey
    FOREIGN KEY (checkin_id) REFERENCES checkin_ids (id) ON DELETE CASCADE;
ALTER TABLE checkin_overrides ADD CONSTRAINT checkin_overrides_checkin_id_fkey
    FOREIGN KEY (checkin_id) REFERENCES checkin_ids (id) ON DELETE CASCADE;

-- No ANALYZE here: on a new database it would record the new tables as empty, and the plans
-- cached for the foreign-key checks on `checkin_ids` would read it whole until autovacuum's
-- first analysis; unanalysed, the planner sizes them by their pages and uses the keys.
