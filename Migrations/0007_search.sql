-- Finding a quiet place (docs/ARCHITECTURE.md, "Search"): venues by distance with PostGIS,
-- estimated cells for hours without data, and one search row per venue with data.

-- PostGIS must be installed on the database server; say what to install when it is not.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'postgis') THEN
        RAISE EXCEPTION USING
            MESSAGE = 'HearClear needs the PostGIS extension, which this PostgreSQL server does not have',
            HINT = format(
                'install PostGIS for PostgreSQL %s on the database server (on Debian or Ubuntu: '
                'apt-get install postgresql-%s-postgis-3; in Docker: the postgis/postgis:%s-3.4 image), '
                'then start HearClear again',
                current_setting('server_version_num')::int / 10000,
                current_setting('server_version_num')::int / 10000,
                current_setting('server_version_num')::int / 10000);
    END IF;
END
$$;
CREATE EXTENSION IF NOT EXISTS postgis;

-- Where the venue is, as PostGIS sees it: kept by PostgreSQL from latitude and longitude, so
-- every writer of a venue keeps it right. Adding it rewrites the table: the backfill.
ALTER TABLE venues ADD COLUMN location geography(Point, 4326)
    GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography) STORED;
CREATE INDEX venues_location_idx ON venues USING gist (location);

-- Estimated cells: a cell without check-ins of its own, predicted from the venue's weekday and
-- hour pattern or from venues of its category nearby. They have no check-ins or devices.
ALTER TABLE loudness_cells
    ADD COLUMN estimated boolean NOT NULL DEFAULT false,
    ADD COLUMN basis text CHECK (basis IN ('venue_pattern', 'category_nearby')),
    DROP CONSTRAINT loudness_cells_checkins_check,
    DROP CONSTRAINT loudness_cells_devices_check,
    ADD CONSTRAINT loudness_cells_counts_check CHECK (
        CASE WHEN estimated THEN basis IS NOT NULL AND checkins = 0 AND devices = 0
             ELSE basis IS NULL AND checkins >= 1 AND devices >= 1 END);

-- One row per venue with cells, written by the aggregation worker with the cells, for search:
-- where it is and its category (copied from the venue, and kept by a trigger when the venue
-- changes), the overall level (median of the measured cells), every cell's level as one array (index
-- (weekday − 1) · 24 + hour + 1; NULL for no cell), which of them are measured, and the clock
-- to find a venue-local hour with: the venue's zone, or for a venue without one the UTC offset
-- its included check-ins carried most often. Levels are model-corrected dBFS, as in cells.
CREATE TABLE venue_levels (
    venue_id        bigint PRIMARY KEY REFERENCES venues (id) ON DELETE CASCADE,
    -- Copies of the venue's, so that a search with a level filter scans only venues with data.
    location        geography(Point, 4326) NOT NULL,
    category        text,
    overall_dbfs    real,
    levels          real[] NOT NULL CHECK (cardinality(levels) = 168),
    measured        boolean[] NOT NULL CHECK (cardinality(measured) = 168),
    timezone        text,
    utc_offset_min  smallint,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- The zone when this server's time-zone data knows it, else NULL (HearClear checks zones against
-- Foundation's data, which can differ; search must never fail on one venue's zone).
CREATE FUNCTION known_time_zone(zone text) RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF zone IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM now() AT TIME ZONE zone;
    RETURN zone;
EXCEPTION WHEN invalid_parameter_value THEN
    RETURN NULL;
END
$$;

-- Rewrites the venue_levels rows of these venues from their cells (and drops the rows of venues
-- left without cells). One statement for a whole batch, in the worker's transaction.
CREATE FUNCTION refresh_venue_levels(venue_ids bigint[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM venue_levels s
    WHERE s.venue_id = ANY(venue_ids)
      AND NOT EXISTS (SELECT 1 FROM loudness_cells l WHERE l.venue_id = s.venue_id);
    INSERT INTO venue_levels AS s (
        venue_id, location, category, overall_dbfs, levels, measured, timezone, utc_offset_min)
    SELECT v.id, v.location, v.category, c.overall, c.levels, c.measured, z.zone,
           CASE WHEN z.zone IS NULL THEN
               (SELECT mode() WITHIN GROUP (ORDER BY k.utc_offsets_min[1])
                FROM (SELECT utc_offsets_min FROM checkins
                      WHERE venue_id = v.id AND status = 'included'
                      ORDER BY started_at DESC LIMIT 200) AS k)
           END
    FROM venues v
    CROSS JOIN LATERAL (SELECT known_time_zone(v.timezone) AS zone) AS z
    -- One pass over the venue's cells builds all three.
    CROSS JOIN LATERAL (
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY l.level_dbfs) FILTER (WHERE NOT l.estimated) AS overall,
               array_agg(l.level_dbfs ORDER BY g.i) AS levels,
               array_agg(coalesce(NOT l.estimated, false) ORDER BY g.i) AS measured,
               count(l.venue_id) AS cells
        FROM generate_series(0, 167) AS g(i)
        LEFT JOIN loudness_cells l
          ON l.venue_id = v.id AND l.weekday = g.i / 24 + 1 AND l.hour = g.i % 24) AS c
    WHERE v.id = ANY(venue_ids) AND c.cells > 0
    ON CONFLICT (venue_id) DO UPDATE SET
        location = EXCLUDED.location, category = EXCLUDED.category, overall_dbfs = EXCLUDED.overall_dbfs,
        levels = EXCLUDED.levels, measured = EXCLUDED.measured, timezone = EXCLUDED.timezone, utc_offset_min = EXCLUDED.utc_offset_min, updated_at = now();
$$;

SELECT refresh_venue_levels(array_agg(id)) FROM venues;
CREATE INDEX venue_levels_location_idx ON venue_levels USING gist (location);

-- A venue moved, renamed its category or changed its zone: its search row follows at once (the
-- zone's cells follow when the worker has re-judged the venue, which a zone change queues).
CREATE FUNCTION venue_levels_follow_venue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE venue_levels SET location = NEW.location, category = NEW.category,
                            timezone = known_time_zone(NEW.timezone)
    WHERE venue_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER venue_levels_follow_venue AFTER UPDATE OF latitude, longitude, category, timezone ON venues
    FOR EACH ROW EXECUTE FUNCTION venue_levels_follow_venue();

-- The venue-local cell index (1…168) of an instant, in a zone or at a fixed UTC offset; NULL
-- when neither is known. IMMUTABLE is a small lie PostgreSQL allows: a zone's rules change only
-- with the server's time-zone data.
CREATE FUNCTION venue_cell_index(instant timestamptz, zone text, utc_offset_min smallint)
RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ((extract(isodow FROM local) - 1) * 24 + extract(hour FROM local))::integer + 1
    FROM (SELECT CASE
                     WHEN zone IS NOT NULL THEN instant AT TIME ZONE zone
                     WHEN utc_offset_min IS NOT NULL
                         THEN (instant AT TIME ZONE 'UTC') + make_interval(mins => utc_offset_min)
                 END AS local) AS t;
$$;
