import Foundation
import PostgresNIO

/// One venue-local hour of a check-in (`checkin_hours`) beside the cell estimate it was compared
/// with (`loudness_cells`). Levels are dBFS: the piece's raw, the cell's model-corrected.
public struct AdminCheckinHour: Sendable, Equatable {
    public var weekday: Int
    public var hour: Int
    public var leqDBFS: Double
    public var l10DBFS: Double
    public var l50DBFS: Double
    public var l90DBFS: Double
    public var maxPeakDBFS: Double
    public var validSeconds: Int
    public var modelOffsetDB: Double
    public var counted: Bool
    public var outlier: Bool
    public var modifiedZ: Double?
    public var residualDB: Double?
    public var cellLevelDBFS: Double?
    public var cellRangeLowDBFS: Double?
    public var cellRangeHighDBFS: Double?
    public var cellCheckins: Int?
}

extension AdminVenueRepository {
    /// The check-in's hours with their cells, in weekday and hour order.
    public func hours(checkinID: UUID) async throws -> [AdminCheckinHour] {
        let rows = try await client.query(Self.hoursQuery(checkinID: checkinID), logger: logger)
        var hours: [AdminCheckinHour] = []
        for try await row in rows.decode(
            (
                Int, Int, Double, Double, Double, Double, Double, Int, Double, Bool, Bool, Double?, Double?, Double?,
                Double?, Double?, Int?
            ).self
        ) {
            hours.append(
                AdminCheckinHour(
                    weekday: row.0, hour: row.1, leqDBFS: row.2, l10DBFS: row.3, l50DBFS: row.4, l90DBFS: row.5,
                    maxPeakDBFS: row.6, validSeconds: row.7, modelOffsetDB: row.8, counted: row.9, outlier: row.10,
                    modifiedZ: row.11, residualDB: row.12, cellLevelDBFS: row.13, cellRangeLowDBFS: row.14,
                    cellRangeHighDBFS: row.15, cellCheckins: row.16
                )
            )
        }
        return hours
    }

    static func hoursQuery(checkinID: UUID) -> PostgresQuery {
        """
        SELECT h.weekday, h.hour, h.leq_dbfs::float8, h.l10_dbfs::float8, h.l50_dbfs::float8, h.l90_dbfs::float8,
               h.max_peak_dbfs::float8, h.valid_seconds, h.model_offset_db::float8, h.counted, h.outlier,
               h.modified_z::float8, h.residual_db::float8, l.level_dbfs::float8, l.range_low_dbfs::float8,
               l.range_high_dbfs::float8, l.checkins
        FROM checkin_hours h
        LEFT JOIN loudness_cells l ON l.venue_id = h.venue_id AND l.weekday = h.weekday AND l.hour = h.hour
        WHERE h.checkin_id = \(checkinID)
        ORDER BY h.weekday, h.hour LIMIT 200
        """
    }
}
