import Foundation
import HearClearModel
import HearClearStore
import Logging
import PostgresNIO

/// Venues and queue entries for the aggregation queue tests, written with plain SQL.
enum QueueFixtures {
    static let logger = Logger(label: "hearclear.tests.queue")

    /// Creates `count` venues and returns their keys.
    static func venues(_ count: Int, on client: PostgresClient) async throws -> [Int64] {
        var keys: [Int64] = []
        for index in 0..<count {
            let rows = try await client.query(
                "INSERT INTO venues (external_id, name, latitude, longitude) VALUES (\("q\(index)"), 'Q', 0, 0) RETURNING id",
                logger: logger)
            for try await key in rows.decode(Int64.self) { keys.append(key) }
        }
        return keys
    }

    /// Queue entries left.
    static func queued(on client: PostgresClient) async throws -> Int {
        let rows = try await client.query("SELECT count(*) FROM aggregation_queue", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

/// Records which venues were worked on, and fails if one is worked on twice at the same time.
actor WorkLog {
    private(set) var processed: [Int64] = []
    private(set) var overlaps: [Int64] = []
    private var active: Set<Int64> = []

    func begin(_ venueID: Int64) {
        if !active.insert(venueID).inserted { overlaps.append(venueID) }
    }

    func end(_ venueID: Int64) {
        active.remove(venueID)
        processed.append(venueID)
    }
}
