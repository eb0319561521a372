import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Searches venues by distance with PostGIS and by loudness with `venue_levels`: the truth the
/// search index answers as (and the path while it loads, is stale or is off).
public struct VenueSearchRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Within the radius means `location <-> point ≤ radius`: the distance every search reports
    /// and sorts by, the one `SphereDistance` computes to the same double. `ST_DWithin` alone
    /// decides by a distance of its own (a cached tree's, which may differ from `<->`'s by
    /// ~10⁻⁸ m), so it only selects candidates from the index, with this margin, and `<->`
    /// decides.
    static let withinMarginMetres = 0.01

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Up to `query.limit` venues after `query.after`, in the query's order. Searches run as
    /// prepared statements (one per shape of query; every value is a parameter), so PostgreSQL
    /// plans each shape once per connection instead of once per search.
    public func search(_ query: VenueSearchQuery, referenceOffsetDB: Double) async throws -> [VenueSearchHit] {
        switch (query.order, query.filter == nil) {
        case (.distance, true):
            let statement = PreparedQuery<NearestSearch>(
                Self.nearestUnfiltered(query, referenceOffsetDB: referenceOffsetDB))
            return try await hits(try await client.execute(statement, logger: logger), byLevel: false)
        case (.distance, false):
            let statement = PreparedQuery<LevelledSearchByDistance>(
                Self.levelled(query, referenceOffsetDB: referenceOffsetDB))
            return try await hits(try await client.execute(statement, logger: logger), byLevel: false)
        case (.level, _):
            let statement = PreparedQuery<LevelledSearchByLevel>(
                Self.levelled(query, referenceOffsetDB: referenceOffsetDB))
            return try await hits(try await client.execute(statement, logger: logger), byLevel: true)
        }
    }

    /// Nearest first with no level filter: PostGIS takes the page straight from the GiST index
    /// (`<->`: distance on the sphere, as `ST_Distance(…, false)`), and only the page's venues
    /// are levelled.
    static func nearestUnfiltered(_ query: VenueSearchQuery, referenceOffsetDB: Double) -> PostgresQuery {
        let after = query.after
        return
            """
            WITH page AS MATERIALIZED (
                SELECT v.id, v.location <-> ST_SetSRID(ST_MakePoint(\(query.longitude), \(query.latitude)), 4326)::geography
                         AS distance
                FROM venues v
                WHERE ST_DWithin(
                        v.location, ST_SetSRID(ST_MakePoint(\(query.longitude), \(query.latitude)), 4326)::geography,
                        \(query.radiusMetres) + \(Self.withinMarginMetres), false)
                  AND v.location <-> ST_SetSRID(ST_MakePoint(\(query.longitude), \(query.latitude)), 4326)::geography
                      <= \(query.radiusMetres)
                  AND (\(query.category)::text IS NULL OR v.category = \(query.category)::text)
                  AND v.id IS DISTINCT FROM \(query.excludingVenueID)::bigint
                  AND (\(after == nil)
                       OR (v.location <-> ST_SetSRID(ST_MakePoint(\(query.longitude), \(query.latitude)), 4326)::geography,
                           v.id) > (\(after?.distanceMetres)::float8, \(after?.venueID)::bigint))
                ORDER BY v.location <-> ST_SetSRID(ST_MakePoint(\(query.longitude), \(query.latitude)), 4326)::geography,
                         v.id
                LIMIT \(query.limit)),
            leveled AS (
                SELECT p.id, p.distance, c.cell,
                       floor((s.overall_dbfs + \(referenceOffsetDB)) * 10 + 0.5) / 10 AS overall,
                       floor((CASE WHEN \(query.at)::timestamptz IS NULL THEN s.overall_dbfs ELSE s.levels[c.cell] END
                              + \(referenceOffsetDB)) * 10 + 0.5) / 10 AS level
                FROM page p
                LEFT JOIN venue_levels s ON s.venue_id = p.id
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN s.venue_id IS NOT NULL
                                THEN venue_cell_index(\(query.at)::timestamptz, s.timezone, s.utc_offset_min) END AS cell
                ) AS c)
            \(unescaped: Self.hitsSelect(from: "leveled", orderedBy: "p.distance, p.id"))
            """
    }

    /// With a level filter, or quietest first: every venue within the radius is levelled, then
    /// filtered, sorted and cut to a page. With a filter only venues with data can pass, so
    /// `venue_levels` (its own GiST index) is read instead of every venue. A venue's local cell
    /// is computed once per clock (zone, or UTC offset) among the venues found, not once per
    /// venue: `AT TIME ZONE` costs about 8 µs, which per venue was most of a search.
    /// `width_bucket` numbers a level's band as `Bands` does: the count of upper bounds at or
    /// below it.
    static func levelled(_ query: VenueSearchQuery, referenceOffsetDB: Double) -> PostgresQuery {
        let (filtered, maximum, below) = (query.filter != nil, query.filter?.maximumDB, query.filter?.belowDB)
        let bounds = query.filter?.bandBounds ?? []
        let bandIndexes = (query.filter?.bandIndexes ?? []).map { Int32($0) }
        let (after, order) = (query.after, LevelOrder(query))
        let (levelKey, afterLevelKey) = (order.key, order.afterKey)
        return
            """
            WITH q AS (
                SELECT ST_SetSRID(ST_MakePoint(\(query.longitude), \(query.latitude)), 4326)::geography AS point),
            found AS MATERIALIZED (
                SELECT s.venue_id AS id, s.location <-> q.point AS distance, s.overall_dbfs, s.levels, s.timezone,
                       s.utc_offset_min, true AS has_levels
                FROM venue_levels s CROSS JOIN q
                WHERE \(filtered) AND ST_DWithin(s.location, q.point, \(query.radiusMetres) + \(Self.withinMarginMetres), false)
                  AND s.location <-> q.point <= \(query.radiusMetres)
                  AND (\(query.category)::text IS NULL OR s.category = \(query.category)::text)
                  AND s.venue_id IS DISTINCT FROM \(query.excludingVenueID)::bigint
                UNION ALL
                SELECT v.id, v.location <-> q.point, s.overall_dbfs, s.levels, s.timezone, s.utc_offset_min,
                       s.venue_id IS NOT NULL
                FROM venues v CROSS JOIN q
                LEFT JOIN venue_levels s ON s.venue_id = v.id
                WHERE NOT \(filtered) AND ST_DWithin(v.location, q.point, \(query.radiusMetres) + \(Self.withinMarginMetres), false)
                  AND v.location <-> q.point <= \(query.radiusMetres)
                  AND (\(query.category)::text IS NULL OR v.category = \(query.category)::text)
                  AND v.id IS DISTINCT FROM \(query.excludingVenueID)::bigint),
            clocks AS MATERIALIZED (
                SELECT z.timezone, z.utc_offset_min,
                       venue_cell_index(\(query.at)::timestamptz, z.timezone, z.utc_offset_min) AS cell
                FROM (SELECT DISTINCT f.timezone, f.utc_offset_min FROM found f WHERE f.has_levels) AS z),
            leveled AS MATERIALIZED (
                SELECT f.id, f.distance, k.cell,
                       floor((f.overall_dbfs + \(referenceOffsetDB)) * 10 + 0.5) / 10 AS overall,
                       floor((CASE WHEN \(query.at)::timestamptz IS NULL THEN f.overall_dbfs ELSE f.levels[k.cell] END
                              + \(referenceOffsetDB)) * 10 + 0.5) / 10 AS level
                FROM found f
                LEFT JOIN clocks k
                  ON f.has_levels AND k.timezone IS NOT DISTINCT FROM f.timezone
                 AND k.utc_offset_min IS NOT DISTINCT FROM f.utc_offset_min),
            page AS (
                SELECT l.*, \(unescaped: levelKey) AS level_key
                FROM leveled l
                WHERE (NOT \(filtered) OR (
                        l.level IS NOT NULL
                        AND (\(maximum)::float8 IS NULL OR l.level <= \(maximum)::float8)
                        AND (\(below)::float8 IS NULL OR l.level < \(below)::float8)
                        AND (cardinality(\(bandIndexes)::integer[]) = 0
                             OR width_bucket(l.level, \(bounds)::float8[]) = ANY(\(bandIndexes)::integer[]))))
                  AND (\(after == nil)
                       OR (\(unescaped: levelKey), l.distance, l.id)
                          > (\(afterLevelKey)::float8, \(after?.distanceMetres)::float8, \(after?.venueID)::bigint))
                ORDER BY \(unescaped: levelKey), l.distance, l.id
                LIMIT \(query.limit))
            \(unescaped: Self.hitsSelect(from: "page", orderedBy: "p.level_key, p.distance, p.id"))
            """
    }

    /// The first sort key of a levelled search: quietest first, a venue without a level after
    /// every level (1e9 stands in for "none"); nearest first, the same for every venue. The shape
    /// of the query, not a parameter: each order is a prepared statement of its own.
    struct LevelOrder {
        /// The key's SQL over the `leveled` row `l`.
        let key: String
        /// The key of the venue the page starts after.
        let afterKey: Double

        init(_ query: VenueSearchQuery) {
            let byLevel = query.order == .level
            key = byLevel ? "coalesce(l.level, 1.0e9)" : "0::float8"
            afterKey = byLevel ? (query.after?.levelDB ?? 1.0e9) : 0
        }
    }

    /// Venues with a word of their name starting with each of `words` (``NameWords``: folded,
    /// compared in `venues.name_key`, found through its trigram index), optionally within
    /// `radiusMetres` of a point: nearest first then by name key with a point, by name key alone
    /// without one, up to `limit` after `after` (`afterKey` is the name key of the venue the
    /// position names). Each hit is levelled as ``search(_:referenceOffsetDB:)`` levels it, at
    /// `at` or overall. No words, no venue.
    public func searchByName(
        words: [String], latitude: Double?, longitude: Double?, radiusMetres: Double, at: Date?, category: String?,
        limit: Int, after: VenueSearchQuery.Position?, afterKey: String?, referenceOffsetDB: Double
    ) async throws -> [VenueSearchHit] {
        guard !words.isEmpty else { return [] }
        let query = Self.nameQuery(
            words: words, latitude: latitude, longitude: longitude, radiusMetres: radiusMetres, at: at,
            category: category, limit: limit, after: after, afterKey: afterKey, referenceOffsetDB: referenceOffsetDB)
        return try await hits(try await client.query(query, logger: logger), byLevel: false)
    }

    /// The query of ``searchByName(words:latitude:longitude:radiusMetres:at:category:limit:after:afterKey:referenceOffsetDB:)``.
    /// Every word is a `LIKE` of its own, which the trigram index serves together (it serves no
    /// `LIKE ALL`): ``NameWords/maximumSearchWords`` of them, the words' and then `'%'` (true of
    /// any key), so that the query has one shape.
    static func nameQuery(
        words: [String], latitude: Double?, longitude: Double?, radiusMetres: Double, at: Date?, category: String?,
        limit: Int, after: VenueSearchQuery.Position?, afterKey: String?, referenceOffsetDB: Double
    ) -> PostgresQuery {
        precondition(words.count <= NameWords.maximumSearchWords && NameWords.maximumSearchWords == 8, "too many words")
        let p =
            words.map { "% " + LikePattern.escaped($0) + "%" }
            + Array(repeating: "%", count: max(0, NameWords.maximumSearchWords - words.count))
        return
            """
            WITH q AS (
                SELECT ST_SetSRID(ST_MakePoint(\(longitude)::float8, \(latitude)::float8), 4326)::geography AS point),
            found AS MATERIALIZED (
                SELECT v.id, v.name_key, coalesce(v.location <-> q.point, 0) AS distance
                FROM venues v CROSS JOIN q
                WHERE v.name_key LIKE \(p[0]) AND v.name_key LIKE \(p[1]) AND v.name_key LIKE \(p[2])
                  AND v.name_key LIKE \(p[3]) AND v.name_key LIKE \(p[4]) AND v.name_key LIKE \(p[5])
                  AND v.name_key LIKE \(p[6]) AND v.name_key LIKE \(p[7])
                  AND (q.point IS NULL
                       OR (ST_DWithin(v.location, q.point, \(radiusMetres) + \(Self.withinMarginMetres), false)
                           AND v.location <-> q.point <= \(radiusMetres)))
                  AND (\(category)::text IS NULL OR v.category = \(category)::text)),
            page AS MATERIALIZED (
                SELECT f.id, f.distance, f.name_key
                FROM found f
                WHERE (\(after == nil)
                       OR (f.distance, f.name_key COLLATE "C", f.id)
                          > (\(after?.distanceMetres)::float8, \(afterKey)::text COLLATE "C", \(after?.venueID)::bigint))
                ORDER BY f.distance, f.name_key COLLATE "C", f.id
                LIMIT \(limit)),
            leveled AS (
                SELECT p.id, p.distance, p.name_key, c.cell,
                       floor((s.overall_dbfs + \(referenceOffsetDB)) * 10 + 0.5) / 10 AS overall,
                       floor((CASE WHEN \(at)::timestamptz IS NULL THEN s.overall_dbfs ELSE s.levels[c.cell] END
                              + \(referenceOffsetDB)) * 10 + 0.5) / 10 AS level
                FROM page p
                LEFT JOIN venue_levels s ON s.venue_id = p.id
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN s.venue_id IS NOT NULL
                                THEN venue_cell_index(\(at)::timestamptz, s.timezone, s.utc_offset_min) END AS cell
                ) AS c)
            \(unescaped: Self.hitsSelect(from: "leveled", orderedBy: "p.distance, p.name_key COLLATE \"C\", p.id"))
            """
    }

    /// The final SELECT of a search: the page's venues (CTE `page`, aliased `p`, with `id`,
    /// `distance`, `overall`, `level`, `cell`) with their documents, check-ins and cells.
    private static func hitsSelect(from page: String, orderedBy order: String) -> String {
        """
        SELECT \(venueColumns), coalesce(n.checkins, 0), p.distance, p.overall, p.level,
               l.weekday IS NOT NULL, \(StoredCell.columns)
        FROM \(page) p
        JOIN venues v ON v.id = p.id
        LEFT JOIN venue_counts n ON n.venue_id = p.id
        LEFT JOIN loudness_cells l
          ON p.cell IS NOT NULL AND l.venue_id = p.id AND l.weekday = (p.cell - 1) / 24 + 1
         AND l.hour = (p.cell - 1) % 24
        ORDER BY \(order)
        """
    }

    /// The hits of a search's rows: the venue, its check-ins, distance, overall level, level,
    /// whether it has a cell, and the cell.
    private func hits<Rows: AsyncSequence>(_ rows: Rows, byLevel: Bool) async throws -> [VenueSearchHit]
    where Rows.Element == PostgresRow {
        var hits: [VenueSearchHit] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let venue = try Venue(reading: &columns)
            let checkins = try columns.next(Int64.self)
            let distance = try columns.next(Double.self)
            let overall = try columns.next(Double?.self)
            let level = try columns.next(Double?.self)
            let hasCell = try columns.next(Bool.self)
            let cell = hasCell ? try StoredCell(reading: &columns) : nil
            hits.append(
                VenueSearchHit(
                    venue: venue, checkins: Int(checkins), distanceMetres: distance, overallDB: overall, cell: cell,
                    position: .init(levelDB: byLevel ? level : nil, distanceMetres: distance, venueID: venue.id)))
        }
        return hits
    }

    /// The measured levels of `venue_levels` (alias `s`) as float8, NaN for no measured cell
    /// (PostgresNIO decodes no NULL array elements); ``measuredLevels(_:)`` reads them back.
    static let measuredLevelsWithoutNulls = """
        array(SELECT CASE WHEN u.measured THEN coalesce(u.level::float8, 'NaN') ELSE 'NaN' END
              FROM unnest(s.levels, s.measured) WITH ORDINALITY AS u(level, measured, i) ORDER BY u.i)
        """

    static func measuredLevels(_ levels: [Double]) -> [Double?] { levels.map { $0.isNaN ? nil : $0 } }

    /// ``VenueRepository/columns`` of the venue aliased `v`.
    static let venueColumns = VenueRepository.columns.split(separator: ", ").map { "v.\($0)" }.joined(separator: ", ")

    /// The levels of every venue with data within `radiusMetres` of a point (`venue_levels`
    /// rows), nearest first, for comparing weekly patterns.
    public func patterns(latitude: Double, longitude: Double, radiusMetres: Double, limit: Int) async throws
        -> [VenuePattern]
    {
        let rows = try await client.query(
            """
            WITH q AS (SELECT ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)::geography AS point)
            SELECT \(unescaped: Self.venueColumns), coalesce(n.checkins, 0),
                   s.location <-> q.point AS distance,
                   \(unescaped: Self.measuredLevelsWithoutNulls), s.overall_dbfs::float8
            FROM venue_levels s CROSS JOIN q
            JOIN venues v ON v.id = s.venue_id
            LEFT JOIN venue_counts n ON n.venue_id = s.venue_id
            WHERE ST_DWithin(s.location, q.point, \(radiusMetres) + \(Self.withinMarginMetres), false)
              AND s.location <-> q.point <= \(radiusMetres)
            ORDER BY distance, v.id
            LIMIT \(limit)
            """,
            logger: logger)
        var patterns: [VenuePattern] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let venue = try Venue(reading: &columns)
            let checkins = try columns.next(Int64.self)
            let distance = try columns.next(Double.self)
            let levels = try columns.next([Double].self)
            let overall = try columns.next(Double?.self)
            patterns.append(
                VenuePattern(
                    venue: venue, checkins: Int(checkins), distanceMetres: distance, overallDBFS: overall,
                    measuredLevelsDBFS: Self.measuredLevels(levels)))
        }
        return patterns
    }

    /// The venue's cell (measured or estimated) at the venue-local weekday and hour of `at`, by
    /// the same clock search uses; `nil` when it has none there.
    public func cell(venueID: Int64, at: Date) async throws -> StoredCell? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: StoredCell.columns)
            FROM venue_levels s
            JOIN loudness_cells l ON l.venue_id = s.venue_id
             AND (l.weekday - 1) * 24 + l.hour + 1 = venue_cell_index(\(at), s.timezone, s.utc_offset_min)
            WHERE s.venue_id = \(venueID)
            """,
            logger: logger)
        for try await row in rows {
            var columns = ColumnReader(row)
            return try StoredCell(reading: &columns)
        }
        return nil
    }
}

private let sampleSearch = VenueSearchQuery(latitude: 0, longitude: 0, radiusMetres: 1, at: Date())

enum NearestSearch: QueryShape {
    static let sql = VenueSearchRepository.nearestUnfiltered(sampleSearch, referenceOffsetDB: 0).sql
}

enum LevelledSearchByDistance: QueryShape {
    static let sql = VenueSearchRepository.levelled(
        {
            var query = sampleSearch
            query.filter = .init()
            return query
        }(), referenceOffsetDB: 0
    ).sql
}

enum LevelledSearchByLevel: QueryShape {
    static let sql = VenueSearchRepository.levelled(
        {
            var query = sampleSearch
            query.order = .level
            return query
        }(), referenceOffsetDB: 0
    ).sql
}
