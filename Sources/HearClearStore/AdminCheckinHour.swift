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
        for try await row in rows {
            var c = ColumnReader(row)
            hours.append(
                AdminCheckinHour(
                    weekday: try c.next(), hour: try c.next(), leqDBFS: try c.next(), l10DBFS: try c.next(),
                    l50DBFS: try c.next(), l90DBFS: try c.next(), maxPeakDBFS: try c.next(), validSeconds: try c.next(),
                    modelOffsetDB: try c.next(), counted: try c.next(), outlier: try c.next(), modifiedZ: try c.next(),
                    residualDB: try c.next(), cellLevelDBFS: try c.next(), cellRangeLowDBFS: try c.next(),
                    cellRangeHighDBFS: try c.next(), cellCheckins: try c.next()
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
