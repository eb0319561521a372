import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// Two aggregation workers whose batches share a neighbourhood: each writes its own venues'
/// search rows (`venue_levels`) and, when a venue gains or loses its cells, measures again the
/// reach of its category's venues around it — rows the other worker's venues own. Those writes
/// must take their locks in one order, or the two deadlock (issue 42: seen at 1,000,000 venues).
@Suite("Search rows written by two workers at once")
struct VenueLevelsLockTests {
    static let logger = Logger(label: "test")
    static let rounds = 30

    /// Venues of one category within a few hundred metres of each other, `count` of them; their keys.
    static func neighbourhood(_ client: PostgresClient, count: Int) async throws -> [Int64] {
        var keys: [Int64] = []
        for index in 0..<count {
            let rows = try await client.query(
                """
                INSERT INTO venues (external_id, name, latitude, longitude, timezone, category)
                VALUES (\("levels-lock-\(index)"), \("Lock test \(index)"), \(51.5 + Double(index % 5) * 0.001),
                        \(-0.12 + Double(index / 5) * 0.001), 'Europe/London', 'pub')
                RETURNING id
                """, logger: logger)
            for try await key in rows.decode(Int64.self) { keys.append(key) }
        }
        return keys
    }

    /// What a batch does to its venues' cells.
    enum Change { case arrive, leave, louder }

    /// One worker's batch as `AggregationRepository` writes it: the batch's venues gain a cell
    /// (`arrive`; kept when a batch rolled back left it there), lose all of theirs, or measure
    /// theirs 1 dB louder (none arrives or leaves: no reach is measured); then their search rows
    /// are refreshed, in one transaction.
    /// Answers whether PostgreSQL broke a deadlock by rolling it back (SQLSTATE 40P01).
    static func batch(_ connection: PostgresConnection, venues: [Int64], _ change: Change) async throws -> Bool {
        do {
            try await connection.transaction(logger: logger) { connection in
                switch change {
                case .louder:
                    try await connection.query(
                        "UPDATE loudness_cells SET level_dbfs = level_dbfs + 1 WHERE venue_id = ANY(\(venues))",
                        logger: logger)
                case .arrive:
                    try await connection.query(
                        """
                        INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs,
                                                    range_high_dbfs, scale_db, checkins, devices, confidence)
                        SELECT v, 5, 21, -30, -32, -28, 2, 1, 1, 'low' FROM unnest(\(venues)::bigint[]) AS v
                        ON CONFLICT DO NOTHING
                        """, logger: logger)
                case .leave:
                    try await connection.query(
                        "DELETE FROM loudness_cells WHERE venue_id = ANY(\(venues))", logger: logger)
                }
                _ = try await connection.query(
                    "SELECT count(*) FROM refresh_venue_levels(\(venues.sorted())::bigint[])", logger: logger
                ).collect()
            }
            return false
        } catch let error as PSQLError where error.sqlState == "40P01" {
            return true
        } catch let error as PSQLError {
            throw StoreError.unexpected("a batch failed: \(String(reflecting: error))")
        }
    }

    @Test("two workers refreshing overlapping neighbourhoods many times over never deadlock")
    func noDeadlock() async throws {
        try await withTestDatabase { client, _ in
            // Twenty pubs within 500 m: fewer than 12 + 1 apart from the ones that leave, so each
            // arrival or departure measures again the reach of every pub, the other worker's too.
            let venues = try await Self.neighbourhood(client, count: 20)
            let first = venues.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            let second = venues.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            let deadlocks = try await withThrowingTaskGroup(of: Int.self) { group in
                for own in [first, second] {
                    group.addTask {
                        try await client.withConnection { connection in
                            var deadlocks = 0
                            for round in 0..<Self.rounds {
                                // Half its venues arrive and the other half leave, each followed
                                // by a batch of all its venues whose cells only move; the other
                                // worker does the same at once.
                                let (arriving, leaving) =
                                    round % 2 == 0
                                    ? (Array(own.prefix(5)), Array(own.suffix(5)))
                                    : (Array(own.suffix(5)), Array(own.prefix(5)))
                                let batches: [([Int64], Change)] = [
                                    (arriving, .arrive), (own, .louder), (leaving, .leave), (own, .louder),
                                ]
                                for (venues, change) in batches {
                                    if try await Self.batch(connection, venues: venues, change) {
                                        deadlocks += 1
                                    }
                                }
                            }
                            return deadlocks
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(deadlocks == 0, "of \(8 * Self.rounds) batches")
            // The reaches are what they would be measured afresh: no write was lost or left stale.
            let stale = try await client.query(
                """
                SELECT count(*) FROM venue_levels
                WHERE neighbour_reach_m IS DISTINCT FROM neighbour_reach(venue_id, category, location)
                """, logger: Self.logger
            ).decode(Int.self).first { _ in true }
            #expect(stale == 0)
        }
    }
}
