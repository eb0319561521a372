import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// The admin's reads and acts on trust (docs/ARCHITECTURE.md, "Venues that change", "Campaigns",
/// "Phones that drift", "Devices that earn trust"): venues' changes and their dismissal, campaigns
/// and the decision on them, offsets over time, devices' trust. Every act queues the venues it
/// concerns in the same statement or transaction, so their judgement follows.
public struct AdminTrustRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// `changed_at` as the key actions name a change by: whole microseconds since 1970.
    static let changeKey = "(extract(epoch FROM c.changed_at) * 1000000)::int8"

    // MARK: - Venue changes

    /// A venue's changes, newest first.
    public func changes(venueID: Int64) async throws -> [AdminVenueChangeRow] {
        try await changeRows(
            """
            SELECT \(unescaped: Self.changeKey), v.id, v.external_id, v.name, \(unescaped: StoredVenueChange.prefixedColumns("c"))
            FROM venue_changes c JOIN venues v ON v.id = c.venue_id
            WHERE c.venue_id = \(venueID)
            ORDER BY c.changed_at DESC
            """)
    }

    /// The most recently detected changes over all venues, newest first.
    public func recentChanges(limit: Int, offset: Int) async throws -> [AdminVenueChangeRow] {
        try await changeRows(
            """
            SELECT \(unescaped: Self.changeKey), v.id, v.external_id, v.name, \(unescaped: StoredVenueChange.prefixedColumns("c"))
            FROM (SELECT * FROM venue_changes ORDER BY detected_at DESC, venue_id LIMIT \(limit) OFFSET \(offset)) c
            JOIN venues v ON v.id = c.venue_id
            ORDER BY c.detected_at DESC, c.venue_id, c.changed_at DESC
            """)
    }

    private func changeRows(_ query: PostgresQuery) async throws -> [AdminVenueChangeRow] {
        let rows = try await client.query(query, logger: logger)
        var changes: [AdminVenueChangeRow] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let key: Int64 = try columns.next()
            let venueID: Int64 = try columns.next()
            let externalID: String = try columns.next()
            let name: String = try columns.next()
            changes.append(
                AdminVenueChangeRow(
                    key: key, venueID: venueID, venueExternalID: externalID, venueName: name,
                    change: try StoredVenueChange(reading: &columns)))
        }
        return changes
    }

    /// Dismisses the venue's change in force whose key is `key` (``changes(venueID:)``), by
    /// `username`, and queues the venue to be judged again, in one statement. False when there is
    /// no such change in force.
    public func dismissChange(venueID: Int64, key: Int64, username: String) async throws -> Bool {
        let queueing = AggregationQueue.enqueueing(from: "dismissed")
        let rows = try await client.query(
            """
            WITH dismissed AS (
                UPDATE venue_changes c SET status = 'dismissed', dismissed_at = now(), dismissed_by = \(username),
                    updated_at = now()
                WHERE c.venue_id = \(venueID) AND \(unescaped: Self.changeKey) = \(key) AND c.status = 'in_force'
                RETURNING c.venue_id),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """,
            logger: logger)
        for try await count in rows.decode(Int.self) { return count > 0 }
        return false
    }

    // MARK: - Campaigns

    /// Open campaigns first (most recently updated first), then decided ones, most recently
    /// decided first.
    public func campaigns(limit: Int, offset: Int) async throws -> [AdminCampaignRow] {
        let rows = try await client.query(
            """
            SELECT v.external_id, v.name, \(unescaped: StoredCampaign.prefixedColumns("c"))
            FROM venue_campaigns c JOIN venues v ON v.id = c.venue_id
            ORDER BY (c.status = 'open') DESC, COALESCE(c.decided_at, c.updated_at) DESC, c.id DESC
            LIMIT \(limit) OFFSET \(offset)
            """,
            logger: logger)
        var campaigns: [AdminCampaignRow] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let externalID: String = try columns.next()
            let name: String = try columns.next()
            campaigns.append(
                AdminCampaignRow(
                    venueExternalID: externalID, venueName: name, campaign: try StoredCampaign(reading: &columns)))
        }
        return campaigns
    }

    /// Decides the open campaign `id`: `exclude` excludes each of its devices (as an admin's
    /// device exclusion, noted with the campaign) and queues every venue they checked in at;
    /// otherwise it is dismissed and its venue queued, so that its devices count normally. The
    /// campaign is marked with the decision, when and by whom, in the same transaction.
    public func decideCampaign(id: Int64, exclude: Bool, username: String) async throws -> AdminCampaignDecision {
        try await client.transaction(logger: logger) { connection in
            let found = try await connection.query(
                "SELECT venue_id, status, devices FROM venue_campaigns WHERE id = \(id) FOR UPDATE", logger: logger)
            var campaign: (venueID: Int64, status: String, devices: [Int64])?
            for try await row in found.decode((Int64, String, [Int64]).self) { campaign = row }
            guard let campaign else { return .notFound }
            guard campaign.status == "open" else { return .notOpen }
            try await connection.query(
                """
                UPDATE venue_campaigns SET status = \(exclude ? "excluded" : "dismissed"), decided_at = now(),
                    decided_by = \(username), updated_at = now()
                WHERE id = \(id)
                """,
                logger: logger)
            var excluded = 0
            if exclude {
                let note = "campaign #\(id)"
                let rows = try await connection.query(
                    """
                    UPDATE devices SET excluded = true, excluded_at = now(), excluded_note = \(note)
                    WHERE id = ANY(\(campaign.devices)) AND NOT excluded
                    RETURNING id
                    """,
                    logger: logger)
                for try await _ in rows { excluded += 1 }
            }
            let queueing = AggregationQueue.enqueueing(from: "touched")
            let queued = try await connection.query(
                """
                WITH touched AS (
                    SELECT \(campaign.venueID)::int8 AS venue_id
                    UNION SELECT DISTINCT venue_id FROM checkins
                          WHERE \(exclude) AND device_id = ANY(\(campaign.devices))),
                \(unescaped: queueing.definitions)
                SELECT \(unescaped: queueing.sentCount)
                """,
                logger: logger)
            var venues = 0
            for try await count in queued.decode(Int.self) { venues = count }
            return .decided(venueID: campaign.venueID, devicesExcluded: excluded, venuesQueued: venues)
        }
    }

    // MARK: - Offsets over time, trust

    /// The offsets in force at the check-in's time, piece by piece; nil for no such check-in.
    public func checkinOffsets(checkinID: UUID) async throws -> AdminCheckinOffsets? {
        let rows = try await client.query(
            """
            SELECT d.model, c.device_os, o.offset_db::float8, o.earlier_offset_db::float8,
                   CASE WHEN o.since = '-infinity' THEN NULL ELSE o.since END, mo.offset_db::float8,
                   e.offset_db::float8, e.earlier_offset_db::float8,
                   CASE WHEN e.since = '-infinity' THEN NULL ELSE e.since END, e.step_db::float8
            FROM checkins c
            JOIN devices d ON d.id = c.device_id
            LEFT JOIN device_model_offsets o ON o.model = d.model
            LEFT JOIN device_model_os_offsets mo ON mo.model = d.model AND mo.os = c.device_os
            LEFT JOIN device_offsets e ON e.device_id = d.id
            WHERE c.id = \(checkinID)
            """,
            logger: logger)
        for try await row in rows {
            var c = ColumnReader(row)
            return AdminCheckinOffsets(
                model: try c.next(), os: try c.next(), modelOffsetDB: try c.next(), modelEarlierOffsetDB: try c.next(),
                modelSince: try c.next(), osOffsetDB: try c.next(), deviceOffsetDB: try c.next(),
                deviceEarlierOffsetDB: try c.next(), deviceSince: try c.next(), deviceStepDB: try c.next())
        }
        return nil
    }

    /// Every model's offset in force with its step and its OS versions' offsets, by model.
    public func modelOffsetHistories() async throws -> [String: AdminModelOffsetHistory] {
        var histories: [String: AdminModelOffsetHistory] = [:]
        let models = try await client.query(
            """
            SELECT model, offset_db::float8, CASE WHEN since = '-infinity' THEN NULL ELSE since END,
                   earlier_offset_db::float8
            FROM device_model_offsets
            """,
            logger: logger)
        for try await (model, offset, since, earlier) in models.decode((String, Double, Date?, Double).self) {
            histories[model] = AdminModelOffsetHistory(
                model: model, offsetDB: offset, since: since, earlierOffsetDB: earlier, osOffsets: [])
        }
        let os = try await client.query(
            "SELECT model, os, offset_db::float8, checkins FROM device_model_os_offsets ORDER BY model, os",
            logger: logger)
        for try await (model, name, offset, checkins) in os.decode((String, String, Double, Int32).self) {
            var history =
                histories[model]
                ?? AdminModelOffsetHistory(model: model, offsetDB: 0, since: nil, earlierOffsetDB: 0, osOffsets: [])
            history.osOffsets.append(.init(os: name, offsetDB: offset, checkins: Int(checkins)))
            histories[model] = history
        }
        return histories
    }

    /// Devices whose readings stepped, most recently detected first.
    public func deviceSteps(limit: Int) async throws -> [AdminDeviceStep] {
        let rows = try await client.query(
            """
            SELECT d.id, d.client_id, d.model, o.offset_db::float8, o.earlier_offset_db::float8, o.step_db::float8,
                   CASE WHEN o.since = '-infinity' THEN NULL ELSE o.since END, o.step_detected_at
            FROM device_offsets o JOIN devices d ON d.id = o.device_id
            WHERE o.step_db IS NOT NULL
            ORDER BY o.step_detected_at DESC NULLS LAST, d.id DESC
            LIMIT \(limit)
            """,
            logger: logger)
        var steps: [AdminDeviceStep] = []
        for try await row in rows.decode((Int64, String, String?, Double, Double, Double, Date?, Date?).self) {
            steps.append(
                AdminDeviceStep(
                    key: row.0, clientID: row.1, model: row.2, offsetDB: row.3, earlierOffsetDB: row.4, stepDB: row.5,
                    since: row.6, detectedAt: row.7))
        }
        return steps
    }

    /// The trust of these devices (`device_trust`), by key; a device without a row is absent (the
    /// floor applies).
    public func trust(deviceKeys: [Int64]) async throws -> [Int64: Double] {
        guard !deviceKeys.isEmpty else { return [:] }
        let rows = try await client.query(
            "SELECT device_id, trust::float8 FROM device_trust WHERE device_id = ANY(\(deviceKeys))", logger: logger)
        var trust: [Int64: Double] = [:]
        for try await (key, value) in rows.decode((Int64, Double).self) { trust[key] = value }
        return trust
    }
}
