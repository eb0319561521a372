-- Two things almost every check-in row carried in full: its UTC offset as a one-element
-- `smallint[]` (23 bytes), and its empty `reasons` and `receipt_reasons` ('{}', 13–16 bytes each).
-- From now on one offset for the whole check-in is `utc_offset_min smallint` (2 bytes) and
-- `utc_offsets_min` holds only offsets that change within a check-in (one per sample); an empty
-- `reasons` or `receipt_reasons` is NULL. About 45 bytes less a new row: in the simulated city,
-- 150 samples a check-in, 0.3 bytes a sample.
--
-- Nothing is rewritten: rows of before keep their arrays, and readers take both forms
-- (`COALESCE(utc_offsets_min, ARRAY[utc_offset_min])`, `COALESCE(reasons, '{}')`). The changes are
-- metadata only; the CHECK holds for every row written from now on and 0025 validates it for the
-- older ones without blocking writes.
ALTER TABLE checkins
    ADD COLUMN utc_offset_min smallint,
    ALTER COLUMN utc_offsets_min DROP NOT NULL,
    ALTER COLUMN reasons DROP NOT NULL,
    ALTER COLUMN reasons DROP DEFAULT,
    ALTER COLUMN receipt_reasons DROP NOT NULL,
    ALTER COLUMN receipt_reasons DROP DEFAULT;

ALTER TABLE checkins ADD CONSTRAINT checkins_utc_offsets
    CHECK ((utc_offset_min IS NULL) <> (utc_offsets_min IS NULL)) NOT VALID;

-- As in 0008, but a venue without a zone takes its check-ins' offset in either form.
CREATE OR REPLACE FUNCTION refresh_venue_levels(venue_ids bigint[]) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
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
        PERFORM remeasure_reach(v.category, v.location) FROM venues v WHERE v.id = ANY(arriving_or_leaving);
        UPDATE venue_levels s SET neighbour_reach_m = neighbour_reach(s.venue_id, s.category, s.location)
        WHERE s.venue_id = ANY(arriving_or_leaving);
    END IF;
END
$$;
