import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// The admin's devices list: most recently seen first, a page at a time. Each row's counts and
/// residuals come from the device's own index entries in `checkins` and `checkin_hours`.
public struct AdminDeviceRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func list(excludedOnly: Bool, limit: Int, offset: Int) async throws -> [AdminDeviceRow] {
        let rows = try await client.query(
            Self.listQuery(excludedOnly: excludedOnly, limit: limit, offset: offset), logger: logger)
        var devices: [AdminDeviceRow] = []
        for try await row in rows.decode(
            (Int64, String, String?, Date, Bool, Date?, String?, Int, Int, [Double], Int).self
        ) {
            let summary = DeviceSummary(
                key: row.0, clientID: row.1, model: row.2, checkins: row.7, lastSeenAt: row.3, excluded: row.4,
                excludedAt: row.5, note: row.6, residualsDB: row.9
            )
            devices.append(AdminDeviceRow(summary: summary, outliers: row.8, busiestHourCheckins: row.10))
        }
        return devices
    }

    /// The page of devices is cut first along `admin_devices_seen_idx` (or its partial twin for
    /// excluded devices); counts and residuals are then read for those devices only.
    static func listQuery(excludedOnly: Bool, limit: Int, offset: Int) -> PostgresQuery {
        // A constant condition, not a parameter, so the planner can use the partial index.
        let filter = excludedOnly ? "excluded" : "true"
        return """
            SELECT d.id, d.client_id, d.model, d.last_seen_at, d.excluded, d.excluded_at, d.excluded_note,
                   s.checkins, s.outliers,
                   COALESCE((SELECT array_agg(r.residual) FROM (
                        SELECT avg(h.residual_db)::float8 AS residual FROM checkin_hours h
                        WHERE h.device_id = d.id AND h.residual_db IS NOT NULL AND h.other_devices > 0
                        GROUP BY h.checkin_id) r), '{}'),
                   p.busiest
            FROM (SELECT id, client_id, model, last_seen_at, excluded, excluded_at, excluded_note FROM devices
                  WHERE \(unescaped: filter)
                  ORDER BY last_seen_at DESC, id DESC LIMIT \(limit) OFFSET \(offset)) d
            CROSS JOIN LATERAL (
                SELECT count(*) AS checkins, count(*) FILTER (WHERE c.status = 'outlier') AS outliers
                FROM checkins c WHERE c.device_id = d.id) s
            CROSS JOIN LATERAL (
                SELECT COALESCE(max(n), 0)::integer AS busiest FROM (
                    SELECT count(*) AS n FROM checkins c WHERE c.device_id = d.id
                    GROUP BY date_trunc('hour', c.started_at)) hours) p
            ORDER BY d.last_seen_at DESC, d.id DESC LIMIT \(limit)
            """
    }
}
