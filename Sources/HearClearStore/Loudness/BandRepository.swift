import Logging
import PostgresNIO

/// A label band in calibrated dB: levels under `belowDB` (and at or above the previous
/// band's bound) get `label`; the last band has no bound.
public struct StoredBand: Sendable, Equatable {
    public var label: String
    public var belowDB: Double?

    public init(label: String, belowDB: Double?) {
        self.label = label
        self.belowDB = belowDB
    }
}

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
