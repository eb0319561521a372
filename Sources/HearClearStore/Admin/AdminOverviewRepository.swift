import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// Reads for the admin dashboard. Lists walk an index newest first and stop at `limit`.
public struct AdminOverviewRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Totals and check-ins by status: one pass over `checkins` (cache the answer; see the caller).
    public func totals() async throws -> AdminOverview.Totals {
        let rows = try await client.query(
            """
            SELECT (SELECT count(*) FROM venues), (SELECT count(*) FROM devices), count(*),
                   COALESCE(sum(sample_count), 0)::int8,
                   count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'included'),
                   count(*) FILTER (WHERE status = 'outlier'), count(*) FILTER (WHERE status = 'excluded')
            FROM checkins
            """,
            logger: logger
        )
        var totals = AdminOverview.Totals()
        for try await row in rows.decode((Int, Int, Int, Int, Int, Int, Int, Int).self) {
            (totals.venues, totals.devices, totals.checkins, totals.samples) = (row.0, row.1, row.2, row.3)
            (totals.pending, totals.included, totals.outlier, totals.excluded) = (row.4, row.5, row.6, row.7)
        }
        return totals
    }

    public func queue() async throws -> AdminOverview.Queue {
        let rows = try await client.query(
            "SELECT count(*), count(DISTINCT venue_id), min(enqueued_at), now() FROM aggregation_queue",
            logger: logger
        )
        for try await row in rows.decode((Int, Int, Date?, Date).self) {
            return AdminOverview.Queue(entries: row.0, venues: row.1, oldestEnqueuedAt: row.2, readAt: row.3)
        }
        throw StoreError.unexpected("queue summary returned no row")
    }

    /// The venues with the newest check-ins.
    public func recentVenues(limit: Int) async throws -> [AdminOverview.RecentVenue] {
        let rows = try await client.query(Self.recentVenuesQuery(limit: limit), logger: logger)
        var venues: [AdminOverview.RecentVenue] = []
        for try await row in rows.decode((String, String, Date?, Int).self) {
            venues.append(.init(externalID: row.0, name: row.1, lastCheckinAt: row.2, checkins: row.3))
        }
        return venues
    }

    public func recentDevices(limit: Int) async throws -> [AdminOverview.RecentDevice] {
        let rows = try await client.query(Self.recentDevicesQuery(limit: limit), logger: logger)
        var devices: [AdminOverview.RecentDevice] = []
        for try await row in rows.decode((Int64, String, String?, Date, Bool).self) {
            devices.append(.init(key: row.0, clientID: row.1, model: row.2, lastSeenAt: row.3, excluded: row.4))
        }
        return devices
    }

    public func recentCheckins(limit: Int) async throws -> [AdminOverview.RecentCheckin] {
        let rows = try await client.query(Self.recentCheckinsQuery(limit: limit), logger: logger)
        var checkins: [AdminOverview.RecentCheckin] = []
        for try await row in rows.decode((UUID, String, String, String, String?, String, [String], Date, Int).self) {
            checkins.append(
                .init(
                    id: row.0, venueExternalID: row.1, venueName: row.2, deviceClientID: row.3, deviceModel: row.4,
                    status: try CheckinStatus(stored: row.5), reasons: row.6.map(JudgementReason.init(rawValue:)),
                    receivedAt: row.7, sampleCount: row.8
                )
            )
        }
        return checkins
    }

    static func recentVenuesQuery(limit: Int) -> PostgresQuery {
        """
        SELECT v.external_id, v.name, a.last_checkin_at,
               coalesce((SELECT n.checkins FROM venue_counts n WHERE n.venue_id = v.id), 0)::bigint
        FROM (SELECT venue_id, activity_at, last_checkin_at FROM venue_activity WHERE last_checkin_at IS NOT NULL
              ORDER BY activity_at DESC, venue_id DESC LIMIT \(limit)) a
        JOIN venues v ON v.id = a.venue_id
        ORDER BY a.activity_at DESC, a.venue_id DESC LIMIT \(limit)
        """
    }

    static func recentDevicesQuery(limit: Int) -> PostgresQuery {
        """
        SELECT id, client_id, model, last_seen_at, excluded FROM devices
        ORDER BY last_seen_at DESC, id DESC LIMIT \(limit)
        """
    }

    static func recentCheckinsQuery(limit: Int) -> PostgresQuery {
        """
        SELECT c.id, v.external_id, v.name, d.client_id, d.model, c.status, COALESCE(c.reasons, '{}'), c.received_at,
               c.sample_count
        FROM (SELECT id, venue_id, device_id, status, reasons, received_at, sample_count FROM checkins
              ORDER BY received_at DESC LIMIT \(limit)) c
        JOIN venues v ON v.id = c.venue_id JOIN devices d ON d.id = c.device_id
        ORDER BY c.received_at DESC LIMIT \(limit)
        """
    }
}
