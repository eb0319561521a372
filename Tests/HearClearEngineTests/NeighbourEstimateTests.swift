import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// Estimates from venues of the same category nearby, through the worker: a venue's empty cell is
/// estimated from its neighbours' measured cells, and judged again when those change.
@Suite("Estimates from neighbours")
struct NeighbourEstimateTests {
    let logger = engineTestLogger
    /// 2026-11-18 10:00:00 UTC, a Wednesday (weekday 3).
    static let wednesday = Date(timeIntervalSince1970: 1_794_996_000)

    /// Stores one check-in a venue-local hour (UTC) at `base + (hour − 10)` dBFS, each from its own
    /// device, and places the venue; answers its key.
    func venue(
        _ client: PostgresClient, _ name: String, hours: [Int], base: Double, category: String,
        north metres: Double
    ) async throws -> Int64 {
        let checkins = CheckinRepository(client: client, logger: logger)
        for hour in hours {
            let submission = SubmissionFixture.submission(
                venue: name, timezone: nil, device: "\(name)-\(hour)", levelDBFS: base + Double(hour - 10),
                start: Self.wednesday.addingTimeInterval(Double(hour - 10) * 3_600 + 300), seconds: 120)
            _ = try await checkins.ingest(submission, maxDistanceMetres: 250)
        }
        let key = try #require(try await AggregationQueue(client: client, logger: logger).venueKey(externalID: name))
        try await client.query(
            "UPDATE venues SET category = \(category), latitude = 51.5 + \(metres / 111_195), longitude = -0.12 WHERE id = \(key)",
            logger: logger)
        return key
    }

    func cell(_ client: PostgresClient, _ venueID: Int64, hour: Int) async throws -> StoredCell? {
        try await LoudnessRepository(client: client, logger: logger).cells(venueID: venueID)
            .first { $0.weekday == 3 && $0.hour == hour }
    }

    func drain(_ aggregator: Aggregator) async throws {
        while !(try await aggregator.processNext(limit: 8).isEmpty) {}
    }

    @Test("an empty cell is estimated from three neighbours of its category, and follows them")
    func estimatedFromNeighbours() async throws {
        try await withTestDatabase { client, _ in
            let aggregator = Aggregator(client: client, logger: logger)
            // The venue: Wednesday 10–13 h. Its neighbours also measured 14 h; they are 3 dB
            // quieter, 5 dB quieter and 2 dB louder than it, with the same hourly rise.
            let pub = try await venue(client, "pub", hours: [10, 11, 12, 13], base: -40, category: "pub", north: 0)
            try await aggregator.recompute(venueID: pub)
            #expect(try await cell(client, pub, hour: 14) == nil, "no neighbour judged yet: no basis")

            _ = try await venue(client, "pub-b", hours: [10, 11, 12, 13, 14], base: -43, category: "pub", north: 300)
            _ = try await venue(client, "pub-c", hours: [10, 11, 12, 13, 14], base: -45, category: "pub", north: 600)
            // Of another category: it does not count.
            let cafe = try await venue(
                client, "cafe-d", hours: [10, 11, 12, 13, 14], base: -38, category: "cafe", north: 900)
            try await drain(aggregator)
            #expect(try await cell(client, pub, hour: 14) == nil, "two neighbours of its category are not enough")

            // The café becomes a pub: the trigger queues the venues around it; the venue is judged
            // again with three neighbours.
            try await client.query("UPDATE venues SET category = 'pub' WHERE id = \(cafe)", logger: logger)
            try await drain(aggregator)
            let estimate = try #require(try await cell(client, pub, hour: 14))
            #expect(estimate.basis == .categoryNearby)
            #expect(estimate.checkins == 0 && estimate.devices == 0 && estimate.confidence == "low")
            // Each neighbour, shifted by its offset from the venue, says −40 + 4 = −36 dBFS.
            #expect(abs(estimate.levelDBFS - -36) < 0.05)
            #expect(estimate.rangeLowDBFS < -38.9 && estimate.rangeHighDBFS > -33.1, "at least ±2.9 dB")
            #expect(try await cell(client, pub, hour: 15) == nil, "no neighbour measured 15 h")

            // A neighbour's cells move by several dB: the worker re-judges the venue.
            let checkins = CheckinRepository(client: client, logger: logger)
            for venue in ["pub-b", "pub-c"] {
                for device in 0..<4 {
                    _ = try await checkins.ingest(
                        SubmissionFixture.submission(
                            venue: venue, timezone: nil, device: "\(venue)-loud-\(device)", levelDBFS: -20,
                            start: Self.wednesday.addingTimeInterval(4 * 3_600 + 1_800 + Double(device) * 130),
                            seconds: 120),
                        maxDistanceMetres: 250)
                }
            }
            try await drain(aggregator)
            let moved = try #require(try await cell(client, pub, hour: 14))
            #expect(moved.basis == .categoryNearby)
            #expect(moved.levelDBFS > -33, "two of three neighbours are far louder at 14 h now")
        }
    }

    @Test("a venue's reach is its 12th nearest neighbour's distance; a move re-judges only venues within reach")
    func reach() async throws {
        try await withTestDatabase { client, _ in
            // Bars every 100 m due north of the first (and a pub beside it, which does not count),
            // each with one measured cell.
            var keys: [Int64] = []
            for (index, category) in (Array(repeating: "bar", count: 15) + ["pub"]).enumerated() {
                let north = category == "pub" ? 50.0 : Double(index) * 100
                let rows = try await client.query(
                    """
                    INSERT INTO venues (external_id, name, latitude, longitude, category)
                    VALUES (\("reach-\(index)"), 'reach', \(51.5 + north / 111_195), -0.12, \(category))
                    RETURNING id
                    """, logger: logger)
                for try await key in rows.decode(Int64.self) { keys.append(key) }
                try await client.query(
                    """
                    INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs,
                                                scale_db, checkins, devices, confidence)
                    VALUES (\(keys[index]), 3, 20, -40, -42, -38, 1, 1, 1, 'low')
                    """, logger: logger)
            }
            // They arrive one at a time, as the worker would write them: each arrival shortens the
            // reach of the bars that have it within reach.
            var movedCount = 0
            for key in keys {
                for try await _ in try await client.query(
                    "SELECT * FROM refresh_venue_levels(ARRAY[\(key)]::bigint[])", logger: logger
                ).decode(Int64.self) {
                    movedCount += 1
                }
            }
            #expect(movedCount == 16, "every row is new: all moved")

            func reaches() async throws -> (reach: [Int64: Double], unbounded: Set<Int64>) {
                var reach: [Int64: Double] = [:]
                var unbounded: Set<Int64> = []
                for try await (key, metres) in try await client.query(
                    "SELECT venue_id, neighbour_reach_m FROM venue_levels", logger: logger
                ).decode((Int64, Double?).self) {
                    if let metres { reach[key] = metres } else { unbounded.insert(key) }
                }
                return (reach, unbounded)
            }
            /// By brute force over the bars' positions (100 m apart): the 12th nearest's distance.
            func expectedReach(of bar: Int, among bars: [Int]) -> Double? {
                let distances = bars.filter { $0 != bar }.map { Double(abs($0 - bar) * 100) }.sorted()
                return distances.count >= 12 ? distances[11] : nil
            }
            func check(_ bars: [Int]) async throws {
                let (reach, unbounded) = try await reaches()
                for bar in bars {
                    if let expected = expectedReach(of: bar, among: bars) {
                        // On PostGIS's sphere (radius 6,371,008.8 m), 100/111,195 degrees of
                        // latitude are 100.00008 m.
                        #expect(abs((reach[keys[bar]] ?? 0) - expected) < 0.5, "bar \(bar)")
                    } else {
                        #expect(unbounded.contains(keys[bar]), "bar \(bar)")
                    }
                }
                // The pub has no other pub: no reach (every pub within 3 km would count).
                #expect(unbounded.contains(keys[15]) && reach[keys[15]] == nil)
            }
            try await check(Array(0..<15))
            // E.g. the first bar's 12th nearest is 1,200 m north, the 8th bar's 600 m away.
            let (reach, _) = try await reaches()
            #expect(abs((reach[keys[0]] ?? 0) - 1_200) < 0.5)
            #expect(abs((reach[keys[7]] ?? 0) - 600) < 0.5)

            // When the last bar (1,400 m north) moves, only the bars that have it within reach are
            // judged again: not the first (1,400 m away, reach 1,200 m).
            var within: Set<Int64> = []
            for try await key in try await client.query(
                "SELECT * FROM venues_within_reach_of(ARRAY[\(keys[14])]::bigint[])", logger: logger
            ).decode(Int64.self) {
                within.insert(key)
            }
            // Bar k is (14 − k)·100 m from it; its reach is the distance of its 12th nearest bar,
            // computed here by brute force over the bars' positions.
            let expected = Set(
                (0..<14).filter { k in
                    let distances = (0..<15).filter { $0 != k }.map { abs($0 - k) * 100 }.sorted()
                    return abs(14 - k) * 100 <= distances[11]
                }.map { keys[$0] })
            #expect(within == expected)
            #expect(!within.contains(keys[0]) && !within.contains(keys[15]))

            // Bar 3 loses its cells: the bars that had it within reach reach farther now.
            try await client.query("DELETE FROM loudness_cells WHERE venue_id = \(keys[3])", logger: logger)
            for try await _ in try await client.query(
                "SELECT * FROM refresh_venue_levels(ARRAY[\(keys[3])]::bigint[])", logger: logger
            ).decode(Int64.self) {}
            try await check((0..<15).filter { $0 != 3 })

            // Bar 14 becomes a pub: the bars reach farther, the pubs now have one other pub.
            try await client.query("UPDATE venues SET category = 'pub' WHERE id = \(keys[14])", logger: logger)
            try await check((0..<14).filter { $0 != 3 })
        }
    }
}
