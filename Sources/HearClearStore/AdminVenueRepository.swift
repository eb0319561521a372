import Foundation
import Logging
import PostgresNIO

/// A venue in the admin's list.
public struct AdminVenueRow: Sendable, Equatable {
    public var externalID: String
    public var name: String
    public var category: String?
    public var activityAt: Date
    public var lastCheckinAt: Date?
    public var checkins: Int
}

/// A check-in in a venue's list. `levelDBFS` is raw; `modelOffsetDB` is its device model's
/// calibration offset (0 without one).
public struct AdminVenueCheckinRow: Sendable, Equatable {
    public var id: UUID
    public var startedAt: Date
    public var status: String
    public var reasons: [String]
    /// Whole: shorten it before showing it.
    public var deviceClientID: String
    public var deviceModel: String?
    public var levelDBFS: Double?
    public var modelOffsetDB: Double
    public var validSeconds: Int?
    public var sampleCount: Int
    /// An admin's standing decision (`include` or `exclude`), if any.
    public var override: String?
}

/// Reads for the admin's venue pages. Every list is one index scan with a limit.
public struct AdminVenueRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Venues, newest activity first; with `search`, those whose name contains it (trigram index)
    /// or whose external id starts with it.
    public func list(search: String?, limit: Int, offset: Int) async throws -> [AdminVenueRow] {
        let query: PostgresQuery
        if let search, !search.isEmpty {
            let escaped = Self.likeEscaped(search)
            let contains = "%" + escaped.lowercased() + "%"
            let prefix = escaped + "%"
            query = """
                SELECT v.external_id, v.name, v.category, a.activity_at, a.last_checkin_at,
                       (SELECT count(*) FROM checkins c WHERE c.venue_id = v.id)
                FROM venues v JOIN venue_activity a ON a.venue_id = v.id
                WHERE lower(v.name) LIKE \(contains) OR v.external_id LIKE \(prefix)
                ORDER BY a.activity_at DESC, a.venue_id DESC LIMIT \(limit) OFFSET \(offset)
                """
        } else {
            query = """
                SELECT v.external_id, v.name, v.category, a.activity_at, a.last_checkin_at,
                       (SELECT count(*) FROM checkins c WHERE c.venue_id = v.id)
                FROM venue_activity a JOIN venues v ON v.id = a.venue_id
                ORDER BY a.activity_at DESC, a.venue_id DESC LIMIT \(limit) OFFSET \(offset)
                """
        }
        let rows = try await client.query(query, logger: logger)
        var venues: [AdminVenueRow] = []
        for try await row in rows.decode((String, String, String?, Date, Date?, Int).self) {
            venues.append(
                AdminVenueRow(
                    externalID: row.0, name: row.1, category: row.2, activityAt: row.3, lastCheckinAt: row.4,
                    checkins: row.5
                )
            )
        }
        return venues
    }

    /// When the venue last saw a check-in.
    public func lastCheckinAt(venueID: Int64) async throws -> Date? {
        let rows = try await client.query(
            "SELECT last_checkin_at FROM venue_activity WHERE venue_id = \(venueID)", logger: logger
        )
        for try await date in rows.decode(Date?.self) { return date }
        return nil
    }

    /// The venue's check-ins, newest first.
    public func checkins(venueID: Int64, limit: Int, offset: Int) async throws -> [AdminVenueCheckinRow] {
        let rows = try await client.query(
            """
            SELECT c.id, c.started_at, c.status, c.reasons, d.client_id, d.model, c.level_dbfs::float8,
                   \(unescaped: AdminSchema.modelOffsetColumn), c.valid_seconds, c.sample_count,
                   \(unescaped: AdminSchema.overrideColumn)
            FROM checkins c JOIN devices d ON d.id = c.device_id
            WHERE c.venue_id = \(venueID)
            ORDER BY c.started_at DESC, c.id DESC LIMIT \(limit) OFFSET \(offset)
            """,
            logger: logger
        )
        var checkins: [AdminVenueCheckinRow] = []
        for try await row in rows.decode(
            (UUID, Date, String, [String], String, String?, Double?, Double, Int?, Int, String?).self
        ) {
            checkins.append(
                AdminVenueCheckinRow(
                    id: row.0, startedAt: row.1, status: row.2, reasons: row.3, deviceClientID: row.4,
                    deviceModel: row.5, levelDBFS: row.6, modelOffsetDB: row.7, validSeconds: row.8,
                    sampleCount: row.9, override: row.10
                )
            )
        }
        return checkins
    }

    /// `text` with LIKE's wildcards and escape character taken literally (the default escape is `\`).
    static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
