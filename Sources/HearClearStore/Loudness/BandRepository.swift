import HearClearModel
import Logging
import PostgresNIO

public struct BandRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The bands in force, lowest first.
    public func current() async throws -> [StoredBand] {
        let rows = try await client.query("SELECT label, below_db FROM bands ORDER BY position", logger: logger)
        var bands: [StoredBand] = []
        for try await (label, below) in rows.decode((String, Float?).self) {
            bands.append(StoredBand(label: label, belowDB: below.map(Double.init)))
        }
        return bands
    }
}
