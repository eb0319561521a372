import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// Reads of what the judgement and the crowd fit decided about trust (docs/ARCHITECTURE.md,
/// "Venues that change", "Devices that earn trust"): devices' standing, venues' changes.
public struct TrustRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The standing of the devices with these keyed client ids, by keyed id.
    public func standings(keyedClientIDs: [String]) async throws -> [String: DeviceStandingRecord] {
        guard !keyedClientIDs.isEmpty else { return [:] }
        let rows = try await client.query(
            """
            SELECT d.client_id, d.id, d.model, COALESCE(t.trust, \(Float(DeviceTrust.floor)))::float8,
                   COALESCE(t.agreements, 0)::float8, COALESCE(t.recent_disagreements, 0), COALESCE(t.checkins, 0),
                   COALESCE(t.venues, 1), o.offset_db::float8, o.earlier_offset_db::float8,
                   CASE WHEN o.since = '-infinity' THEN NULL ELSE o.since END, o.step_db::float8, o.step_detected_at
            FROM devices d
            LEFT JOIN device_trust t ON t.device_id = d.id
            LEFT JOIN device_offsets o ON o.device_id = d.id
            WHERE d.client_id = ANY(\(keyedClientIDs))
            """,
            logger: logger)
        var standings: [String: DeviceStandingRecord] = [:]
        for try await row in rows {
            var c = ColumnReader(row)
            let clientID: String = try c.next()
            standings[clientID] = DeviceStandingRecord(
                device: try c.next(), model: try c.next(), trust: try c.next(), agreements: try c.next(),
                recentDisagreements: Int(try c.next(Int32.self)), checkins: Int(try c.next(Int32.self)),
                venues: Int(try c.next(Int32.self)), offsetDB: try c.next(), earlierOffsetDB: try c.next(),
                since: try c.next(), stepDB: try c.next(), stepDetectedAt: try c.next())
        }
        return standings
    }

    /// The changes of the venues with these external ids, oldest first, by external id.
    public func changes(externalIDs: [String]) async throws -> [String: [StoredVenueChange]] {
        guard !externalIDs.isEmpty else { return [:] }
        let rows = try await client.query(
            """
            SELECT v.external_id, \(unescaped: StoredVenueChange.prefixedColumns("c"))
            FROM venue_changes c JOIN venues v ON v.id = c.venue_id
            WHERE v.external_id = ANY(\(externalIDs))
            ORDER BY v.external_id, c.changed_at
            """,
            logger: logger)
        var changes: [String: [StoredVenueChange]] = [:]
        for try await row in rows {
            var columns = ColumnReader(row)
            let venue: String = try columns.next()
            changes[venue, default: []].append(try StoredVenueChange(reading: &columns))
        }
        return changes
    }
}
