-- Estimates from venues of the same category nearby (docs/ARCHITECTURE.md, "Estimates for empty
-- cells"). A venue's estimates now depend on its neighbours' measured cells: when those change
-- materially, or a venue moves or changes category, the venues around it are judged again.

-- The venues of a category within 3 km of a point, with their distance (PostGIS's sphere): the
-- neighbours a venue's estimates may rest on, and the venues to judge again when it changes.
CREATE FUNCTION category_neighbours(of_category text, around geography)
RETURNS TABLE (venue_id bigint, distance float8) LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT s.venue_id, ST_Distance(s.location, around, false)
    FROM venue_levels s
    WHERE of_category IS NOT NULL AND s.category = of_category AND ST_DWithin(s.location, around, 3000, false)
$$;

-- True when a venue's measured cells changed enough to move its neighbours' estimates: a cell
-- measured before and not now or the other way round, or a level that moved by `threshold_db`
-- or more. A venue without a row before or after has changed.
CREATE FUNCTION measured_levels_moved(
    old_levels real[], old_measured boolean[], new_levels real[], new_measured boolean[], threshold_db real)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT old_levels IS NULL OR new_levels IS NULL
        OR EXISTS (SELECT 1 FROM unnest(old_levels, old_measured, new_levels, new_measured) AS u(a, am, b, bm)
                   WHERE am IS DISTINCT FROM bm OR (am AND abs(a - b) >= threshold_db))
$$;

-- How many neighbours a venue's estimates rest on at most: the nearest 12 of its category within
-- 3 km. The worker reads them with this, and reaches are measured with it.
CREATE FUNCTION neighbour_count() RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 12 $$;

-- How far a venue's estimates reach: the distance of the farthest of its `neighbour_count()`
-- nearest venues of its category, or NULL when it has fewer (then every venue of its category
-- within 3 km counts). A venue whose cells move changes the estimates of the venues it is within
-- reach of, and only theirs: a dozen or so, not every venue of its kind within 3 km.
ALTER TABLE venue_levels ADD COLUMN neighbour_reach_m float8;

CREATE FUNCTION neighbour_reach(venue bigint, of_category text, around geography)
RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN count(*) >= neighbour_count() THEN max(k.distance) END
    FROM (SELECT c.distance FROM category_neighbours(of_category, around) AS c
          WHERE c.venue_id <> venue ORDER BY c.distance LIMIT neighbour_count()) AS k
$$;

-- Measures again the reach of the venues of a category that have a place within reach (and a
-- metre: a tie measured on another pair of venues may differ in the last digits), when a venue
-- arrives there or leaves it. A venue arriving can only shorten a reach, one leaving lengthen it.
CREATE FUNCTION remeasure_reach(of_category text, around geography) RETURNS void LANGUAGE sql AS $$
    UPDATE venue_levels s SET neighbour_reach_m = neighbour_reach(s.venue_id, s.category, s.location)
    FROM category_neighbours(of_category, around) AS c
    WHERE s.venue_id = c.venue_id AND c.distance <= coalesce(s.neighbour_reach_m + 1, 'Infinity');
$$;

-- As in 0007, and also keeps the reaches right, and answers the venues whose measured cells moved
-- by 0.5 dB or more (or that gained or lost a measured cell, or their row).
DROP FUNCTION refresh_venue_levels(bigint[]);
CREATE FUNCTION refresh_venue_levels(venue_ids bigint[]) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
    -- Venues that gain or lose their row: they change the reach of the venues around them.
    arriving_or_leaving bigint[] := ARRAY(
        SELECT i FROM unnest(venue_ids) AS i
        WHERE EXISTS (SELECT 1 FROM venue_levels s WHERE s.venue_id = i)
              <> EXISTS (SELECT 1 FROM loudness_cells l WHERE l.venue_id = i));
BEGIN
    RETURN QUERY
    WITH before AS (
        SELECT venue_id, levels, measured FROM venue_levels WHERE venue_id = ANY(venue_ids)),
    removed AS (
        DELETE FROM venue_levels s
        WHERE s.venue_id = ANY(venue_ids)
          AND NOT EXISTS (SELECT 1 FROM loudness_cells l WHERE l.venue_id = s.venue_id)
        RETURNING s.venue_id),
    written AS (
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
            levels = EXCLUDED.levels, measured = EXCLUDED.measured, timezone = EXCLUDED.timezone,
            utc_offset_min = EXCLUDED.utc_offset_min, updated_at = now()
        RETURNING s.venue_id, s.levels, s.measured)
    SELECT venue_id FROM removed
    UNION ALL
    SELECT w.venue_id FROM written w LEFT JOIN before b ON b.venue_id = w.venue_id
    WHERE measured_levels_moved(b.levels, b.measured, w.levels, w.measured, 0.5);
    -- Once every row of the batch is written, so that venues of one batch count each other.
    IF cardinality(arriving_or_leaving) > 0 THEN
        PERFORM remeasure_reach(v.category, v.location) FROM venues v WHERE v.id = ANY(arriving_or_leaving);
        UPDATE venue_levels s SET neighbour_reach_m = neighbour_reach(s.venue_id, s.category, s.location)
        WHERE s.venue_id = ANY(arriving_or_leaving);
    END IF;
END
$$;

UPDATE venue_levels SET neighbour_reach_m = neighbour_reach(venue_id, category, location);

-- A venue moved or changed category: its search row follows at once (as in 0007), the reaches
-- around its old and new place are measured again, and it and the venues of its category around
-- both places are judged again, their estimates resting on other neighbours now.
CREATE OR REPLACE FUNCTION venue_levels_follow_venue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE venue_levels SET location = NEW.location, category = NEW.category,
                            timezone = known_time_zone(NEW.timezone)
    WHERE venue_id = NEW.id;
    IF (NEW.category IS DISTINCT FROM OLD.category OR NEW.latitude IS DISTINCT FROM OLD.latitude
        OR NEW.longitude IS DISTINCT FROM OLD.longitude)
       AND EXISTS (SELECT 1 FROM venue_levels WHERE venue_id = NEW.id) THEN
        PERFORM remeasure_reach(OLD.category, OLD.location);
        PERFORM remeasure_reach(NEW.category, NEW.location);
        UPDATE venue_levels s SET neighbour_reach_m = neighbour_reach(s.venue_id, s.category, s.location)
        WHERE s.venue_id = NEW.id;
        INSERT INTO aggregation_queue (venue_id, checkins_only)
        SELECT n.venue_id, true FROM category_neighbours(NEW.category, NEW.location) AS n
        UNION
        SELECT n.venue_id, true FROM category_neighbours(OLD.category, OLD.location) AS n
        UNION
        SELECT s.venue_id, true FROM venue_levels s WHERE s.venue_id = NEW.id;
        PERFORM pg_notify('hearclear_aggregation', '*');
    END IF;
    RETURN NULL;
END
$$;

-- The venues whose estimates rest on (or would now rest on) one of these venues: of its category,
-- with it within their reach (and a metre: a tie measured on another pair of venues may differ in
-- the last digits). The worker queues them when these venues' measured cells moved.
CREATE FUNCTION venues_within_reach_of(venue_ids bigint[]) RETURNS SETOF bigint LANGUAGE sql STABLE AS $$
    SELECT DISTINCT n.venue_id
    FROM venues v
    CROSS JOIN LATERAL category_neighbours(v.category, v.location) AS c
    JOIN venue_levels n ON n.venue_id = c.venue_id
    WHERE v.id = ANY(venue_ids) AND n.venue_id <> v.id
      AND c.distance <= coalesce(n.neighbour_reach_m + 1, 'Infinity');
$$;
