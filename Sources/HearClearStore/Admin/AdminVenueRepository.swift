import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

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
        let query = Self.listQuery(search: search, limit: limit, offset: offset)
        let rows = try await client.query(query, logger: logger)
        var venues: [AdminVenueRow] = []
        for try await row in rows.decode((String, String, String?, Date, Int).self) {
            venues.append(
                AdminVenueRow(externalID: row.0, name: row.1, category: row.2, activityAt: row.3, checkins: row.4))
        }
        return venues
    }

    /// The page is cut first (inner LIMIT); the check-in counts are the ones ingest keeps (`venue_counts`).
    static func listQuery(search: String?, limit: Int, offset: Int) -> PostgresQuery {
        if let search, !search.isEmpty {
            let escaped = LikePattern.escaped(search)
            let contains = "%" + escaped.lowercased() + "%"
            let prefix = escaped + "%"
            return """
                SELECT v.external_id, v.name, v.category, a.activity_at,
                       coalesce((SELECT n.checkins FROM venue_counts n WHERE n.venue_id = v.id), 0)::bigint
                FROM (SELECT a.venue_id, a.activity_at
                      FROM venues m JOIN venue_activity a ON a.venue_id = m.id
                      WHERE lower(m.name) LIKE \(contains) OR m.external_id LIKE \(prefix)
                      ORDER BY a.activity_at DESC, a.venue_id DESC LIMIT \(limit) OFFSET \(offset)) a
                JOIN venues v ON v.id = a.venue_id
                ORDER BY a.activity_at DESC, a.venue_id DESC LIMIT \(limit)
                """
        }
        return """
            SELECT v.external_id, v.name, v.category, a.activity_at,
                   coalesce((SELECT n.checkins FROM venue_counts n WHERE n.venue_id = v.id), 0)::bigint
            FROM (SELECT venue_id, activity_at FROM venue_activity
                  ORDER BY activity_at DESC, venue_id DESC LIMIT \(limit) OFFSET \(offset)) a
            JOIN venues v ON v.id = a.venue_id
            ORDER BY a.activity_at DESC, a.venue_id DESC LIMIT \(limit)
            """
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
            Self.checkinsQuery(venueID: venueID, limit: limit, offset: offset), logger: logger)
        var checkins: [AdminVenueCheckinRow] = []
        for try await row in rows.decode(
            (UUID, Date, String, [String], String, String?, Double?, Double, Int?, Int, String?).self
        ) {
            checkins.append(
                AdminVenueCheckinRow(
                    id: row.0, startedAt: row.1, status: try CheckinStatus(stored: row.2),
                    reasons: row.3.map(JudgementReason.init(rawValue:)), deviceClientID: row.4,
                    deviceModel: row.5, levelDBFS: row.6, modelOffsetDB: row.7, validSeconds: row.8,
                    sampleCount: row.9, override: row.10
                )
            )
        }
        return checkins
    }

    /// Newest first along `checkins_venue_started_idx`; devices are looked up for the page only.
    static func checkinsQuery(venueID: Int64, limit: Int, offset: Int) -> PostgresQuery {
        """
        SELECT c.id, c.started_at, c.status, COALESCE(c.reasons, '{}'), d.client_id, d.model, c.level_dbfs::float8,
               \(unescaped: AdminSchema.modelOffsetColumn), c.valid_seconds, c.sample_count,
               \(unescaped: AdminSchema.overrideColumn)
        FROM (SELECT id, device_id, started_at, status, reasons, level_dbfs, valid_seconds, sample_count
              FROM checkins WHERE venue_id = \(venueID)
              ORDER BY started_at DESC LIMIT \(limit) OFFSET \(offset)) c
        JOIN devices d ON d.id = c.device_id
        ORDER BY c.started_at DESC LIMIT \(limit)
        """
    }
}
