import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Admin operations on devices: exclude (its check-ins leave every aggregate), include again,
/// list. Excluding or including queues every venue the device checked in at, in the same
/// transaction, so the aggregates follow within a second.
public struct DeviceAdministration: Sendable {
    /// What an exclude or include did.
    public typealias Change = DeviceExclusionChange

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Excludes (or, with `excluded: false`, includes again) the device whose key (as listed) is
    /// `reference`, or whose stored (keyed) client id is `clientID`.
    public func setExcluded(_ reference: String, clientID: String, excluded: Bool, note: String? = nil) async throws
        -> Change
    {
        try await client.transaction(logger: logger) { connection in
            let key = Int64(reference) ?? -1
            let rows = try await connection.query(
                """
                SELECT id, excluded FROM devices WHERE id = \(key) OR client_id = \(clientID)
                ORDER BY (id = \(key)) DESC LIMIT 1 FOR UPDATE
                """,
                logger: logger)
            var found: (Int64, Bool)?
            for try await row in rows.decode((Int64, Bool).self) { found = row }
            guard let (deviceKey, wasExcluded) = found else { return .notFound }
            guard wasExcluded != excluded else { return .unchanged(key: deviceKey) }
            try await connection.query(
                """
                UPDATE devices SET excluded = \(excluded),
                    excluded_at = CASE WHEN \(excluded) THEN now() END,
                    excluded_note = CASE WHEN \(excluded) THEN \(note) END
                WHERE id = \(deviceKey)
                """,
                logger: logger)
            let venues = try await Self.enqueueVenues(of: [deviceKey], on: connection, logger: logger)
            return .changed(key: deviceKey, venues: venues)
        }
    }

    /// Queues (and wakes the workers for) every venue with a check-in from `deviceKeys`.
    @discardableResult
    private static func enqueueVenues(of deviceKeys: [Int64], on connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        let rows = try await connection.query(AggregationQueue.enqueueingVenues(ofDevices: deviceKeys), logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Devices, most recently seen first (only excluded ones with `excludedOnly`): the admin's
    /// list, without its outlier counts.
    public func list(excludedOnly: Bool = false, limit: Int = 100) async throws -> [DeviceSummary] {
        try await AdminDeviceRepository(client: client, logger: logger)
            .list(excludedOnly: excludedOnly, limit: limit, offset: 0).map(\.summary)
    }
}
