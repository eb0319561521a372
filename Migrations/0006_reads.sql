-- Reads from memory (docs/ARCHITECTURE.md, "Reads and their cache").
--
-- A venue's document shows how many check-ins it has. Counting them on every read grew with the
-- venue's history; ingest now keeps the count, in the statement that inserts the check-in. It is a
-- table of its own, not a column of `venue_activity`: the aggregation worker holds a venue's
-- activity row for a whole batch, and ingest must never wait on that.
CREATE TABLE venue_counts (
    venue_id  bigint PRIMARY KEY REFERENCES venues (id) ON DELETE CASCADE,
    checkins  bigint NOT NULL
);

-- Check-ins of servers still running the previous version while this applies are not counted;
-- apply it with every server stopped or upgraded together.
INSERT INTO venue_counts (venue_id, checkins)
SELECT venue_id, count(*) FROM checkins GROUP BY venue_id;

-- What the read endpoints answer changes, and every server instance drops its cached answers for
-- it, when a NOTIFY on `hearclear_reads` names the change (sent in the changing transaction, so it
-- is heard once that commits). Bands and venue details are changed rarely, by admins and
-- sometimes by an operator's SQL: triggers catch every writer. The aggregation worker names the
-- venues whose cells it wrote in its own write statement (AggregationRepository).
CREATE FUNCTION read_change_bands() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hearclear_reads', 'bands');
    RETURN NULL;
END
$$;
CREATE TRIGGER read_change_bands AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON bands
    FOR EACH STATEMENT EXECUTE FUNCTION read_change_bands();

CREATE FUNCTION read_change_venue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hearclear_reads', 'venue:' || OLD.external_id);
    IF NEW.external_id IS DISTINCT FROM OLD.external_id THEN
        PERFORM pg_notify('hearclear_reads', 'venue:' || NEW.external_id);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER read_change_venue AFTER UPDATE ON venues
    FOR EACH ROW EXECUTE FUNCTION read_change_venue();
