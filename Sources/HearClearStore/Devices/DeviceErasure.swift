import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// A phone's own data (docs/PRIVACY.md): what is stored about one device, and its erasure.
public struct DeviceErasure: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The device's row, by its stored (keyed) id.
    public func device(keyedID: String) async throws -> StoredDevice? {
        let rows = try await client.query(
            """
            SELECT d.id, d.client_id, d.model, d.first_seen_at, d.last_seen_at, d.excluded, d.excluded_at,
                   o.offset_db::float8, o.standard_error_db::float8, o.checkins
            FROM devices d LEFT JOIN device_offsets o ON o.device_id = d.id
            WHERE d.client_id = \(keyedID)
            """, logger: logger)
        for try await row in rows {
            var c = ColumnReader(row)
            let key: Int64 = try c.next()
            let clientID: String = try c.next()
            let model: String? = try c.next()
            let firstSeen: Date = try c.next()
            let lastSeen: Date = try c.next()
            let excluded: Bool = try c.next()
            let excludedAt: Date? = try c.next()
            let offset: Double? = try c.next()
            let standardError: Double? = try c.next()
            let offsetCheckins: Int? = try c.next()
            return StoredDevice(
                key: key, clientID: clientID, model: model, firstSeenAt: firstSeen, lastSeenAt: lastSeen,
                excluded: excluded, excludedAt: excludedAt,
                calibration: offset.map {
                    .init(offsetDB: $0, standardErrorDB: standardError, checkins: offsetCheckins ?? 0)
                })
        }
        return nil
    }

    /// Erases the device whose stored (keyed) id is `keyedID`: its check-ins (with their hours
    /// and any admin decision on them), its reports, its calibration and its row, and queues every
    /// venue it had checked in at for a full judgement without it, all in one transaction. `nil`
    /// when there is no such device.
    public func erase(keyedID: String) async throws -> DeviceErasureSummary? {
        try await client.transaction(logger: logger) { connection -> DeviceErasureSummary? in
            let found = try await connection.query(
                "SELECT id FROM devices WHERE client_id = \(keyedID) FOR UPDATE", logger: logger
            ).decode(Int64.self).first { _ in true }
            guard let key = found else { return nil }
            // The counts it lowers locked first, in the order of their venues' ids, as ingest's
            // statement locks them: an erasure and a group of check-ins that share venues wait
            // for each other, never in a circle (the `UPDATE … FROM` below would lock them in
            // whatever order its join reads them).
            _ = try await connection.query(
                """
                SELECT venue_id FROM venue_counts
                WHERE venue_id IN (SELECT venue_id FROM checkins WHERE device_id = \(key))
                ORDER BY venue_id FOR UPDATE
                """, logger: logger
            ).collect()
            let queueing = AggregationQueue.enqueueing(from: "touched")
            let rows = try await connection.query(
                """
                WITH hours AS (DELETE FROM checkin_hours WHERE device_id = \(key) RETURNING 1),
                removed AS (DELETE FROM checkins WHERE device_id = \(key) RETURNING id, venue_id),
                -- Their ids too (migration 0020), and with them any admin decision on them.
                forgotten AS (DELETE FROM checkin_ids WHERE id IN (SELECT id FROM removed) RETURNING 1),
                per_venue AS (SELECT venue_id, count(*) AS n FROM removed GROUP BY venue_id),
                counted AS (
                    UPDATE venue_counts c SET checkins = greatest(c.checkins - p.n, 0)
                    FROM per_venue p WHERE c.venue_id = p.venue_id RETURNING 1),
                reports AS (
                    DELETE FROM venue_reports
                    WHERE device_id = \(key) OR device_sha256 = sha256(convert_to(\(keyedID), 'UTF8'))
                    RETURNING 1),
                calibration AS (DELETE FROM device_offsets WHERE device_id = \(key) RETURNING 1),
                -- Its trust (migration 0026), and its place in any campaign the admin sees.
                trust AS (DELETE FROM device_trust WHERE device_id = \(key) RETURNING 1),
                campaigns AS (
                    UPDATE venue_campaigns SET devices = array_remove(devices, \(key))
                    WHERE devices @> ARRAY[\(key)]::bigint[] RETURNING 1),
                touched AS (SELECT venue_id FROM per_venue),
                \(unescaped: queueing.definitions)
                SELECT (SELECT count(*) FROM removed), (SELECT count(*) FROM reports),
                       (SELECT count(*) FROM calibration), \(unescaped: queueing.sentCount)
                """, logger: logger)
            // (Data-modifying CTEs run whether or not the answer reads them: `hours`, `forgotten`,
            // `counted`, `trust` and `campaigns`.)
            var summary: DeviceErasureSummary?
            for try await (checkins, reports, calibration, venues) in rows.decode((Int, Int, Int, Int).self) {
                summary = DeviceErasureSummary(
                    checkins: checkins, reports: reports, calibration: calibration > 0, venues: venues)
            }
            try await connection.query("DELETE FROM devices WHERE id = \(key)", logger: logger)
            return summary
        }
    }
}
