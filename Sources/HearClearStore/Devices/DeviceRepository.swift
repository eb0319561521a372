import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Devices by their client-made id. The id is never shown whole outside the store.
public struct DeviceRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func exists(clientID: String) async throws -> Bool {
        let rows = try await client.query("SELECT 1 FROM devices WHERE client_id = \(clientID)", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Records the device (or refreshes when it was last seen); returns its key.
    @discardableResult
    public func register(clientID: String, model: String?) async throws -> Int64 {
        let rows = try await client.query(Self.upsertQuery(clientID: clientID, model: model), logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        throw StoreError.unexpected("device upsert returned no row")
    }

    static func upsertQuery(clientID: String, model: String?) -> PostgresQuery {
        """
        INSERT INTO devices (client_id, model) VALUES (\(clientID), \(model))
        ON CONFLICT (client_id) DO UPDATE SET
            last_seen_at = now(), model = COALESCE(EXCLUDED.model, devices.model)
        RETURNING id
        """
    }
}
