import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// The read cache in whole servers: answers come from memory, every kind of change reaches them
/// through NOTIFY (also from another instance), and a lost listener empties the cache. Cached
/// answers never expire, and ``expectCached(_:_:hour:sourceLocation:)`` shows an answer is held
/// before each change: a change seen afterwards can only have come by its notification, however
/// long it took (how long is the load test's to measure).
@Suite("Read cache: kept true by NOTIFY")
struct ReadCacheInvalidationTests {
    static let logger = EngineTestApp.logger
    static let grid = "/api/v2/venues/arms/loudness"
    static let venue = "/api/v2/venues/arms"

    static func cellCheckins(_ client: some TestClientProtocol, _ hour: LocalHour) async throws -> Int? {
        guard let grid = try await JSONProbe.get(grid, from: client) else { return nil }
        return JSONProbe.cell(grid, day: hour.weekdayName, hour: hour.hour)?["checkins"] as? Int
    }

    static func venueCheckins(_ client: some TestClientProtocol) async throws -> Int? {
        try await JSONProbe.get(venue, from: client)?["checkins"] as? Int
    }

    /// Shows that the grid and the venue document are answered from memory: a change written
    /// behind the server's back (no NOTIFY) is not seen; it is undone afterwards.
    static func expectCached(
        _ client: some TestClientProtocol, _ database: PostgresClient, hour: LocalHour,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        // Held in memory: read again after the database changed under it with no notification,
        // an answer is the same. A first read may miss (the instance's listener not listening
        // yet, or a change of the worker's still being told on a loaded machine), so this waits
        // until both answers are held; a cache that never holds them fails here, naming it.
        let held = try await eventually("the grid and the venue held in memory") { () -> Bool? in
            guard let cell = try await cellCheckins(client, hour), let count = try await venueCheckins(client)
            else { return nil }
            try await database.query("UPDATE loudness_cells SET checkins = checkins + 1000", logger: logger)
            try await database.query("UPDATE venue_counts SET checkins = checkins + 1000", logger: logger)
            var again: (cell: Int?, count: Int?)?
            var failure: (any Error)?
            do {
                again = (try await cellCheckins(client, hour), try await venueCheckins(client))
            } catch {
                failure = error
            }
            try await database.query("UPDATE loudness_cells SET checkins = checkins - 1000", logger: logger)
            try await database.query("UPDATE venue_counts SET checkins = checkins - 1000", logger: logger)
            if let failure { throw failure }
            return again?.cell == cell && again?.count == count ? true : nil
        }
        #expect(held, "grid and venue from memory", sourceLocation: sourceLocation)
    }

    @Test("each kind of change reaches the cached answers: cells, venue details, bands, device, check-in decision")
    func everyKindOfChange() async throws {
        try await EngineTestApp.run { client, database in
            let first = CheckinFixture(
                venue: "arms", device: "phone-one-0001", levelDBFS: -40, start: SubmissionFixture.previousHourStart)
            try await first.submit(to: client)
            let hour = first.localHour
            _ = try await eventually("the first cell") { try await Self.cellCheckins(client, hour) }
            try await Self.expectCached(client, database, hour: hour)

            // The worker commits new cells: a second device's check-in.
            let second = CheckinFixture(
                venue: "arms", device: "phone-two-0002", levelDBFS: -40, start: SubmissionFixture.previousHourStart)
            try await second.submit(to: client)
            _ = try await eventually("two check-ins in the cell") {
                try await Self.cellCheckins(client, hour) == 2 ? true : nil
            }
            #expect(try await Self.venueCheckins(client) == 2)
            try await Self.expectCached(client, database, hour: hour)

            // The venue's details change.
            let put = try await client.execute(
                uri: Self.venue, method: .put, headers: [.contentType: "application/json"],
                body: ByteBuffer(
                    string:
                        #"{"name": "The New Arms", "latitude": -33.8688, "longitude": 151.2093, "timezone": "Australia/Sydney"}"#
                )
            ) { $0.status }
            #expect(put == .ok)
            _ = try await eventually("the new name") {
                try await JSONProbe.get(Self.venue, from: client)?["name"] as? String == "The New Arms" ? true : nil
            }
            try await Self.expectCached(client, database, hour: hour)

            // An admin changes the bands: 70 dB is now "loud".
            #expect(try await JSONProbe.get(Self.venue, from: client)?["label"] as? String == "moderate")
            try await Engine.testing(database).administration.bands.replace(with: [
                StoredBand(label: "quiet", belowDB: 60), StoredBand(label: "loud", belowDB: nil),
            ])
            _ = try await eventually("the new label") {
                try await JSONProbe.get(Self.venue, from: client)?["label"] as? String == "loud" ? true : nil
            }
            let bands = try await JSONProbe.get("/api/v2/bands", from: client)?["bands"] as? [[String: Any]]
            #expect(bands?.count == 2)
            try await Self.expectCached(client, database, hour: hour)

            // An admin excludes the second device: its venue is re-judged.
            let engine = Engine(
                client: database, configuration: EngineTestApp.configuration.engine, logger: Self.logger)
            _ = try await engine.devices.setExcluded("phone-two-0002", excluded: true)
            _ = try await eventually("one check-in in the cell") {
                try await Self.cellCheckins(client, hour) == 1 ? true : nil
            }
            try await Self.expectCached(client, database, hour: hour)

            // An admin forces the excluded device's check-in in.
            _ = try await engine.decisions.decide(
                checkinID: second.id, .include, username: "admin", note: nil)
            _ = try await eventually("the forced check-in counted") {
                try await Self.cellCheckins(client, hour) == 2 ? true : nil
            }
        }
    }

    @Test("a change made through one instance is seen through another, whose cache it reaches by NOTIFY")
    func twoInstances() async throws {
        try await withTestDatabase { database, configuration in
            let one = try await buildApplication(
                configuration: EngineTestApp.configuration, database: .external(configuration), logger: Self.logger)
            let other = try await buildApplication(
                configuration: EngineTestApp.configuration, database: .external(configuration), logger: Self.logger)
            try await one.boundedTest(.router) { one in
                try await other.boundedTest(.router) { other in
                    let checkin = CheckinFixture(
                        venue: "arms", device: "phone-one-0001", levelDBFS: -40,
                        start: SubmissionFixture.previousHourStart)
                    try await checkin.submit(to: one)
                    let hour = checkin.localHour
                    _ = try await eventually("the cell, through the other instance") {
                        try await Self.cellCheckins(other, hour)
                    }
                    try await Self.expectCached(other, database, hour: hour)

                    let put = try await one.execute(
                        uri: Self.venue, method: .put, headers: [.contentType: "application/json"],
                        body: ByteBuffer(
                            string:
                                #"{"name": "Renamed", "latitude": -33.8688, "longitude": 151.2093, "timezone": "Australia/Sydney"}"#
                        )
                    ) { $0.status }
                    #expect(put == .ok)
                    _ = try await eventually("the new name, through the other") {
                        try await JSONProbe.get(Self.venue, from: other)?["name"] as? String == "Renamed" ? true : nil
                    }

                    try await CheckinFixture(
                        venue: "arms", device: "phone-two-0002", levelDBFS: -40,
                        start: SubmissionFixture.previousHourStart
                    ).submit(to: one)
                    _ = try await eventually("the second check-in, through the other") {
                        try await Self.cellCheckins(other, hour) == 2 ? true : nil
                    }
                }
            }
        }
    }

    /// Backends LISTENing for read changes on this test's database (the cluster is shared by
    /// every test running at once).
    static func listeners(_ database: PostgresClient) async throws -> Int {
        try await database.count(
            "pg_stat_activity", where: "query LIKE 'LISTEN%hearclear_reads%' AND datname = current_database()")
    }

    @Test("when the listening connection is lost the cache empties, reads go to the database, and caching resumes")
    func lostListener() async throws {
        try await EngineTestApp.run { client, database in
            let checkin = CheckinFixture(
                venue: "arms", device: "phone-one-0001", levelDBFS: -40, start: SubmissionFixture.previousHourStart)
            try await checkin.submit(to: client)
            let counted = try await eventually("the venue judged") {
                try await Self.cellCheckins(client, checkin.localHour) != nil
                    ? try await Self.venueCheckins(client) : nil
            }
            #expect(counted == 1)
            _ = try await eventually("the listener") {
                try await Self.listeners(database) == 1 ? true : nil
            }
            // Caching is on once an answer outlives a change made behind the server's back (the
            // listener's LISTEN can show in pg_stat_activity a moment before the server relies on
            // it; on a loaded machine that moment was long enough to read the database instead).
            _ = try await eventually("the answer kept") { try await Self.keptFromMemory(client, database) }

            try await database.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE query LIKE 'LISTEN%hearclear_reads%' AND datname = current_database()
                """,
                logger: Self.logger)
            _ = try await eventually("the database's count, once the cache is emptied") {
                try await Self.venueCheckins(client) == Self.storedCheckins(database) ? true : nil
            }

            _ = try await eventually("listening again") {
                try await Self.listeners(database) == 1 ? true : nil
            }
            _ = try await eventually("the answer kept again") { try await Self.keptFromMemory(client, database) }
        }
    }

    /// True when a read fills the cache and a later change behind the server's back is not seen;
    /// nil otherwise (for ``eventually``).
    static func keptFromMemory(_ client: some TestClientProtocol, _ database: PostgresClient) async throws -> Bool? {
        _ = try await venueCheckins(client)
        try await database.query("UPDATE venue_counts SET checkins = checkins + 1", logger: logger)
        let seen = try await venueCheckins(client)
        return try await seen != storedCheckins(database) ? true : nil
    }

    static func storedCheckins(_ database: PostgresClient) async throws -> Int? {
        try await database.query("SELECT checkins FROM venue_counts", logger: logger).decode(Int.self).first { _ in true
        }
    }
}
