-- Check-ins partitioned by the UTC month of `started_at` (PostgreSQL's declarative partitioning),
-- in three files so that no write waits long: this one makes the new table beside the old one
-- (metadata only), the runner's preparation of 0021 copies the rows into it while ingest goes
-- on, and 0021 catches up what changed meanwhile under a short lock and puts it in the old one's
-- place; 0022 validates the new foreign keys without blocking.
--
-- A month's rows, and their indexes, are one table `checkins_YYYY_MM`, which an archive can
-- detach and a retention can drop whole instead of deleting rows; each index stays the size of a
-- month. A partitioned table's unique keys must hold its partition key, so `checkins` is keyed by
-- (id, started_at) and no longer says alone that an id is used once. `checkin_ids` does: one row
-- per check-in id, which ingest inserts first (ON CONFLICT DO NOTHING) in the statement that
-- stores the check-in, so a resend is caught whatever `started_at` it carries, and two requests
-- with one id race on its primary key as they did on `checkins`'. It is what a check-in's hours
-- and an admin's decision on it reference (0021), and erasure deletes from both. An id outlives a
-- detached month: a resend of an archived check-in is still no new check-in.
CREATE TABLE checkin_ids (id uuid PRIMARY KEY);

CREATE TABLE checkins_by_month (
    LIKE checkins INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS
) PARTITION BY RANGE (started_at);
-- Keys and indexes while it is empty: the copy fills them as it goes, and nothing is validated
-- later under a lock. (0021 renames them to the old table's names.) The old table's
-- `checkins_status_idx` (0001: status, received_at WHERE status <> 'included') is not carried
-- over: no statement reads through it, and it made every change of a judgement's status write
-- an entry in every index (no HOT update).
ALTER TABLE checkins_by_month
    ADD CONSTRAINT checkins_by_month_pkey PRIMARY KEY (id, started_at),
    ADD CONSTRAINT checkins_venue_id_fkey FOREIGN KEY (venue_id) REFERENCES venues (id),
    ADD CONSTRAINT checkins_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices (id);
CREATE INDEX checkins_by_month_device_started_idx ON checkins_by_month (device_id, started_at DESC);
CREATE INDEX checkins_by_month_received_idx ON checkins_by_month (received_at DESC);
CREATE INDEX checkins_by_month_venue_started_idx ON checkins_by_month (venue_id, started_at DESC);
CREATE INDEX checkins_by_month_venue_uncleaned_idx ON checkins_by_month (venue_id) WHERE cleaned_at IS NULL;

-- The partition of the UTC month of `instant` (of `parent`: `checkins` once 0021 is applied),
-- made when missing. Serialised by an advisory lock, so two sessions asking for one new month at
-- once both get it.
CREATE FUNCTION checkins_partition(instant timestamptz, parent text DEFAULT 'checkins') RETURNS regclass
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
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', partition_name, parent,
                       first_day AT TIME ZONE 'UTC', (first_day + interval '1 month') AT TIME ZONE 'UTC');
    END IF;
    RETURN partition_name::regclass;
END $$;

-- The partitions of every month from `first_at`'s to `last_at`'s; how many were made.
CREATE FUNCTION checkins_partitions(first_at timestamptz, last_at timestamptz, parent text DEFAULT 'checkins')
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    month timestamp := date_trunc('month', first_at AT TIME ZONE 'UTC');
    made integer := 0;
BEGIN
    WHILE month <= last_at AT TIME ZONE 'UTC' LOOP
        IF to_regclass('checkins_' || to_char(month, 'YYYY_MM')) IS NULL THEN
            PERFORM checkins_partition(month AT TIME ZONE 'UTC', parent);
            made := made + 1;
        END IF;
        month := month + interval '1 month';
    END LOOP;
    RETURN made;
END $$;

-- Every check-in written, changed or deleted from now until 0021, for 0021 to copy again.
CREATE TABLE checkins_changed (id uuid NOT NULL);
CREATE FUNCTION checkins_changed_log() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO checkins_changed (id) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
    RETURN NULL;
END $$;
CREATE TRIGGER checkins_changed AFTER INSERT OR UPDATE OR DELETE ON checkins
    FOR EACH ROW EXECUTE FUNCTION checkins_changed_log();
