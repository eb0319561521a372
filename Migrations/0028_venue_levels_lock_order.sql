-- The search rows (`venue_levels`) written with their locks in one order (docs/ARCHITECTURE.md,
-- "When neighbours change"; issue 42). A worker's batch writes its own venues' rows, and when one
-- of them gains or loses its row it measures again the reach of the venues of its category around
-- it: rows of venues another worker may be judging at that moment. Taken as they came, two such
-- batches locked their own rows and then each other's, and PostgreSQL broke the deadlock by
-- rolling one back (`VenueLevelsLockTests` saw 1–4 in 120 batches). Now:
--
-- * a transaction that will measure reaches (a batch with a venue arriving or leaving, a venue
--   moved or recategorised) first takes one advisory lock, `reach_lock_key()`, so such
--   transactions take turns;
-- * every refresh locks its own rows by id before writing any (`lock_venue_levels`), and the
--   rows whose reach it will measure, by id, all at once before measuring.
--
-- A batch without arrivals waits only in that first ordered lock, for rows a measuring
-- transaction holds, and never holds one a measuring transaction needs while it waits for another:
-- both lock those rows in ascending order.

-- The key of the advisory lock measuring transactions take turns under ("HCREACH").
CREATE FUNCTION reach_lock_key() RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT x'48435245414348'::bigint
$$;

-- Locks the search rows of these venues, in the order of their ids (the sort is below the lock in
-- the plan, so rows are locked as they come out of it). PERFORM reads the query to its end.
CREATE FUNCTION lock_venue_levels(venue_ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM venue_levels WHERE venue_id = ANY(venue_ids) ORDER BY venue_id FOR UPDATE;
END
$$;

-- As in 0024, with the locks above.
CREATE OR REPLACE FUNCTION refresh_venue_levels(venue_ids bigint[]) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
    -- Venues that gain or lose their row: they change the reach of the venues around them.
    arriving_or_leaving bigint[] := ARRAY(
        SELECT i FROM unnest(venue_ids) AS i
        WHERE EXISTS (SELECT 1 FROM venue_levels s WHERE s.venue_id = i)
              <> EXISTS (SELECT 1 FROM loudness_cells l WHERE l.venue_id = i));
    -- The venues around the arriving or leaving ones whose reach may be measured again.
    around bigint[];
BEGIN
    -- Locks in one order (see the head of this file): the reach lock first when reaches will be
    -- measured, then the batch's own rows by id.
    IF cardinality(arriving_or_leaving) > 0 THEN
        PERFORM pg_advisory_xact_lock(reach_lock_key());
    END IF;
    PERFORM lock_venue_levels(venue_ids);
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
                   (SELECT mode() WITHIN GROUP (ORDER BY COALESCE(k.utc_offset_min, k.utc_offsets_min[1]))
                    FROM (SELECT utc_offset_min, utc_offsets_min FROM checkins
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
        around := ARRAY(
            SELECT c.venue_id FROM venues v CROSS JOIN LATERAL category_neighbours(v.category, v.location) AS c
            WHERE v.id = ANY(arriving_or_leaving));
        PERFORM lock_venue_levels(around);
        PERFORM remeasure_reach(v.category, v.location) FROM venues v WHERE v.id = ANY(arriving_or_leaving);
        UPDATE venue_levels s SET neighbour_reach_m = neighbour_reach(s.venue_id, s.category, s.location)
        WHERE s.venue_id = ANY(arriving_or_leaving);
    END IF;
END
$$;

-- As in 0008, with the locks above: the reach lock, then the venue's row and those around its
-- old and new place, by id, before any is written.
CREATE OR REPLACE FUNCTION venue_levels_follow_venue() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved boolean := NEW.category IS DISTINCT FROM OLD.category OR NEW.latitude IS DISTINCT FROM OLD.latitude
                     OR NEW.longitude IS DISTINCT FROM OLD.longitude;
BEGIN
    IF moved AND EXISTS (SELECT 1 FROM venue_levels WHERE venue_id = NEW.id) THEN
        PERFORM pg_advisory_xact_lock(reach_lock_key());
        PERFORM lock_venue_levels(ARRAY(
            SELECT NEW.id
            UNION SELECT c.venue_id FROM category_neighbours(OLD.category, OLD.location) AS c
            UNION SELECT c.venue_id FROM category_neighbours(NEW.category, NEW.location) AS c));
    END IF;
    UPDATE venue_levels SET location = NEW.location, category = NEW.category,
                            timezone = known_time_zone(NEW.timezone)
    WHERE venue_id = NEW.id;
    IF moved AND EXISTS (SELECT 1 FROM venue_levels WHERE venue_id = NEW.id) THEN
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

-- As in 0008, but the nearest venues come from the location index in nearest-first order (`<->`)
-- instead of sorting every venue of the category within 3 km: at 1,000,000 venues (about 450 of
-- a category within 3 km of a venue with data, 1,500 once all are judged) measuring 400 reaches
-- took 1.03 s this way against 0.12 s, with the same sum. `<->` on geography may order by another
-- earth model than ST_Distance(…, false) at near-ties, so it gives twice the candidates, and the
-- nearest of those by the sphere's distance are taken, as before.
CREATE OR REPLACE FUNCTION neighbour_reach(venue bigint, of_category text, around geography)
RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN count(*) >= neighbour_count() THEN max(k.distance) END
    FROM (SELECT c.distance
          FROM (SELECT ST_Distance(s.location, around, false) AS distance
                FROM venue_levels s
                WHERE of_category IS NOT NULL AND s.category = of_category AND s.venue_id <> venue
                  AND ST_DWithin(s.location, around, 3000, false)
                ORDER BY s.location <-> around LIMIT 2 * neighbour_count()) AS c
          ORDER BY c.distance LIMIT neighbour_count()) AS k
$$;
