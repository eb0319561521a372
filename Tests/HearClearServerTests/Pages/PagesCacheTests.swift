import Foundation
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

/// The pages for people in a whole server: a venue's page, its week and the empty form are held
/// in the read cache and dropped by the same notifications as the API's answers. Each check
/// first shows a page is held (the database changed behind the server's back, with no
/// notification, is not seen), so a change seen afterwards can only have come by its
/// notification (with `--pages-max-age` an hour, no page expires meanwhile), or — in the last test — by
/// the venue page's lifetime, which no notification shortens.
@Suite("Pages for people: from the read cache, kept true by NOTIFY")
struct PagesCacheTests {
    static let logger = EngineTestApp.logger
    static let page = "/venues/arms"
    static let svg = "/venues/arms/week.svg"

    static func body(_ uri: String, _ client: some TestClientProtocol) async throws -> String? {
        try await client.execute(uri: uri, method: .get) { $0.status == .ok ? $0.body.string : nil }
    }

    /// Waits until `uri` is answered from memory and shows `showing`: read again after the counts
    /// and levels changed under it with no notification, it is the same; the change is undone
    /// afterwards. (A read while the change stood may have been kept: then a notification, sent
    /// by hand, drops it and the next round reads again.)
    static func expectHeld(
        _ uri: String, showing: String, _ client: some TestClientProtocol, _ database: PostgresClient,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let held = try await eventually("\(uri) held in memory") { () -> String? in
            guard let first = try await body(uri, client) else { return nil }
            guard first.contains(showing) else {
                try await database.query("SELECT pg_notify('hearclear_reads', 'venue:arms')", logger: logger)
                return nil
            }
            try await behindTheBack(database, by: 1000)
            var again: String?
            var failure: (any Error)?
            do {
                again = try await body(uri, client)
            } catch {
                failure = error
            }
            try await behindTheBack(database, by: -1000)
            if let failure { throw failure }
            return again == first ? first : nil
        }
        #expect(!held.isEmpty, sourceLocation: sourceLocation)
        return held
    }

    /// Changes what a venue's page and week show, with no notification.
    static func behindTheBack(_ database: PostgresClient, by step: Int) async throws {
        try await database.query(
            "UPDATE venue_counts SET checkins = checkins + \(step)", logger: logger)
        try await database.query(
            "UPDATE loudness_cells SET level_dbfs = level_dbfs + \(Float(step) / 100)", logger: logger)
    }

    static func checkin(_ device: String, levelDBFS: Double) -> CheckinFixture {
        CheckinFixture(venue: "arms", device: device, levelDBFS: levelDBFS, start: SubmissionFixture.previousHourStart)
    }

    @Test("a venue's page and its week are held, and a check-in's notification drops both")
    func droppedByNotification() async throws {
        try await EngineTestApp.run(configure: { $0.pagesMaxAgeSeconds = 3600 }) { client, database in
            try await Self.checkin("phone-one-0001", levelDBFS: -40).submit(to: client)
            _ = try await eventually("the first check-in on the page") {
                try await Self.body(Self.page, client)?.contains("From 1 check-ins") == true ? true : nil
            }
            let page = try await Self.expectHeld(Self.page, showing: "From 1 check-ins", client, database)
            // (The worker may still change the week — estimates of hours nearby — so any week.)
            let svg = try await Self.expectHeld(Self.svg, showing: "</svg>", client, database)

            // Another phone, 10 dB louder: the cell's level and the venue's count change.
            try await Self.checkin("phone-two-0002", levelDBFS: -30).submit(to: client)
            let newPage = try await eventually("the second check-in on the page") {
                try await Self.body(Self.page, client).flatMap { $0.contains("From 2 check-ins") ? $0 : nil }
            }
            #expect(newPage != page)
            _ = try await eventually("the new level in the week") {
                try await Self.body(Self.svg, client).flatMap { $0 != svg ? true : nil }
            }
            // Held again: the new answers are kept.
            _ = try await Self.expectHeld(Self.page, showing: "From 2 check-ins", client, database)
        }
    }

    /// Renames a band with the bands' trigger disabled for this transaction: no notification.
    static func renameQuietly(_ database: PostgresClient, _ from: String, to: String) async throws {
        try await database.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("SET LOCAL session_replication_role = replica", logger: logger)
            try await connection.query("UPDATE bands SET label = \(to) WHERE label = \(from)", logger: logger)
            try await connection.query("COMMIT", logger: logger)
        }
    }

    @Test("the form alone is held, with an ETag, and dropped by a change of the bands")
    func form() async throws {
        try await EngineTestApp.run(configure: { $0.pagesMaxAgeSeconds = 3600 }) { client, database in
            let held = try await eventually("the form held in memory") { () -> String? in
                guard let first = try await Self.body("/", client) else { return nil }
                guard first.contains("<option value=\"quiet\">") else {
                    // Read while renamed, and kept: a notification drops it.
                    try await database.query("SELECT pg_notify('hearclear_reads', 'bands')", logger: Self.logger)
                    return nil
                }
                try await Self.renameQuietly(database, "quiet", to: "hushed")
                let again = try await Self.body("/", client)
                try await Self.renameQuietly(database, "hushed", to: "quiet")
                return again == first ? first : nil
            }
            #expect(held.contains("<option value=\"quiet\">"))
            let first = try await client.execute(uri: "/", method: .get) { $0 }
            let tag = try #require(first.headers[.eTag])
            let again = try await client.execute(uri: "/", method: .get, headers: [.ifNoneMatch: tag]) { $0.status }
            #expect(again == .notModified)

            // Through the trigger, as an admin changes them: the form follows.
            try await database.query("UPDATE bands SET label = 'hushed' WHERE label = 'quiet'", logger: Self.logger)
            _ = try await eventually("the new band in the form") {
                try await Self.body("/", client)?.contains("<option value=\"hushed\">") == true ? true : nil
            }
        }
    }

    @Test("a venue's page lives at most --pages-max-age: what no notification names (its neighbours) shows then")
    func venuePageLifetime() async throws {
        try await EngineTestApp.run(configure: { $0.pagesMaxAgeSeconds = 1 }) { client, database in
            try await Self.checkin("phone-one-0001", levelDBFS: -40).submit(to: client)
            _ = try await eventually("the first check-in on the page") {
                try await Self.body(Self.page, client)?.contains("From 1 check-ins") == true ? true : nil
            }
            // Behind the server's back, with no notification: after at most a second of lifetime,
            // a read shows it.
            try await database.query(
                "UPDATE venue_counts SET checkins = checkins + 1000", logger: Self.logger)
            _ = try await eventually("the page read again after its lifetime") {
                try await Self.body(Self.page, client)?.contains("From 1001 check-ins") == true ? true : nil
            }
        }
    }
}
