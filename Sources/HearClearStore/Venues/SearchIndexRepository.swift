import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// What the search index loads (docs/ARCHITECTURE.md, "Search"): every venue as one row with its
/// count, its `venue_levels` row and its cells, streamed at start, and the rows of named venues
/// when they change.
public struct SearchIndexRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Streams every venue's row to `each`, in id order, as PostgreSQL sends them (rows are not
    /// gathered first); answers how many.
    @discardableResult
    public func all(_ each: (SearchIndexRow) throws -> Void) async throws -> Int {
        let rows = try await client.query(
            "\(unescaped: Self.select) ORDER BY v.id", logger: logger)
        var count = 0
        for try await row in rows {
            try each(try Self.row(row))
            count += 1
        }
        return count
    }

    /// The rows of the venues with these external ids; an id with no venue has no row.
    public func rows(externalIDs: [String]) async throws -> [SearchIndexRow] {
        guard !externalIDs.isEmpty else { return [] }
        let rows = try await client.query(
            "\(unescaped: Self.select) WHERE v.external_id = ANY(\(externalIDs))", logger: logger)
        var found: [SearchIndexRow] = []
        for try await row in rows { found.append(try Self.row(row)) }
        return found
    }

    /// A venue, its count, its `venue_levels` row (levels with NaN for no cell: PostgresNIO
    /// decodes no NULL array elements) and its cells as parallel arrays, only with levels (search
    /// reads a cell only through the venue's clock there).
    static let select = """
        SELECT \(VenueSearchRepository.venueColumns), coalesce(n.checkins, 0), v.name_key,
               s.venue_id IS NOT NULL, s.timezone, s.utc_offset_min, s.overall_dbfs,
               array(SELECT coalesce(u.level, 'NaN'::real) FROM unnest(s.levels) WITH ORDINALITY AS u(level, i)
                     ORDER BY u.i),
               s.measured, c.indexes, c.levels, c.lows, c.highs, c.checkins, c.devices, c.confidences, c.bases
        FROM venues v
        LEFT JOIN venue_counts n ON n.venue_id = v.id
        LEFT JOIN venue_levels s ON s.venue_id = v.id
        LEFT JOIN LATERAL (
            SELECT array_agg(((l.weekday - 1) * 24 + l.hour)::int4) AS indexes, array_agg(l.level_dbfs) AS levels,
                   array_agg(l.range_low_dbfs) AS lows, array_agg(l.range_high_dbfs) AS highs,
                   array_agg(l.checkins) AS checkins, array_agg(l.devices) AS devices,
                   array_agg(l.confidence) AS confidences, array_agg(coalesce(l.basis, '')) AS bases
            FROM loudness_cells l WHERE s.venue_id IS NOT NULL AND l.venue_id = v.id) AS c ON true
        """

    static func row(_ row: PostgresRow) throws -> SearchIndexRow {
        var columns = ColumnReader(row)
        let venue = try Venue(reading: &columns)
        let checkins = try columns.next(Int64.self)
        let nameKey = try columns.next(String?.self)
        let hasLevels = try columns.next(Bool.self)
        let timezone = try columns.next(String?.self)
        let offset = try columns.next(Int16?.self)
        let overall = try columns.next(Float?.self)
        let levels = try columns.next([Float]?.self)
        let measured = try columns.next([Bool]?.self)
        let indexes = try columns.next([Int32]?.self) ?? []
        let levelValues = try columns.next([Float]?.self) ?? []
        let lows = try columns.next([Float]?.self) ?? []
        let highs = try columns.next([Float]?.self) ?? []
        let cellCheckins = try columns.next([Int32]?.self) ?? []
        let devices = try columns.next([Int32]?.self) ?? []
        let confidences = try columns.next([String]?.self) ?? []
        let bases = try columns.next([String]?.self) ?? []
        guard hasLevels, let levels, let measured else {
            return SearchIndexRow(venue: venue, checkins: Int(checkins), nameKey: nameKey, levels: nil)
        }
        var cells: [SearchIndexRow.Cell] = []
        cells.reserveCapacity(indexes.count)
        for k in indexes.indices {
            let basis: PatternEstimate.Basis?
            if bases[k].isEmpty {
                basis = nil
            } else if let known = PatternEstimate.Basis(rawValue: bases[k]) {
                basis = known
            } else {
                throw StoreError.unexpected("unknown loudness_cells.basis '\(bases[k])'")
            }
            cells.append(
                SearchIndexRow.Cell(
                    index: Int(indexes[k]), levelDBFS: levelValues[k], rangeLowDBFS: lows[k], rangeHighDBFS: highs[k],
                    checkins: Int(cellCheckins[k]), devices: Int(devices[k]), confidence: confidences[k],
                    basis: basis))
        }
        return SearchIndexRow(
            venue: venue, checkins: Int(checkins), nameKey: nameKey,
            levels: .init(
                timezone: timezone, utcOffsetMinutes: offset.map(Int.init), overallDBFS: overall,
                levelsDBFS: levels.map { $0.isNaN ? nil : $0 }, measured: measured, cells: cells))
    }
}
