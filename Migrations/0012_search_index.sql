-- Search from memory (docs/ARCHITECTURE.md, "Search"): every server instance holds every venue
-- for search and keeps it true by the notifications on `hearclear_reads`. A venue updated is
-- already named there (0006); a venue created or deleted is named now too, so that each
-- instance adds or drops it.
CREATE FUNCTION read_change_venue_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('hearclear_reads', 'venue:' || OLD.external_id);
    ELSE
        PERFORM pg_notify('hearclear_reads', 'venue:' || NEW.external_id);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER read_change_venue_row AFTER INSERT OR DELETE ON venues
    FOR EACH ROW EXECUTE FUNCTION read_change_venue_row();
