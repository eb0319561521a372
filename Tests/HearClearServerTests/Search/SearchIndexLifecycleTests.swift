import Configuration
import Foundation
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// The search index's life (docs/ARCHITECTURE.md, "Search"): PostgreSQL answers before it is
/// loaded and while it loads; once loaded it answers, and it follows venues created, changed and
/// deleted by the notifications; a lost listener makes it stale (PostgreSQL answers) until it
/// listens and loads again; `--search-index off` leaves it off. Every wait is for an event
/// (`eventually`), never a time.
@Suite("Search index: loading, kept true, stale, off")
struct SearchIndexLifecycleTests {
    static let centre = SearchTests.centre
    static var configuration: EngineConfiguration {
        var configuration = EngineConfiguration()
        configuration.deviceKey = DeviceKey.tests
        configuration.referenceOffsetDB = SearchTests.reference
        return configuration
    }

    /// Nearest first within 5 km of the city's centre, every venue.
    static var everything: VenueFinder.Search {
        VenueFinder.Search(
            latitude: centre.latitude, longitude: centre.longitude, radiusMetres: 5_000, limit: 100)
    }
    static var query: VenueSearchQuery {
        VenueSearchQuery(latitude: centre.latitude, longitude: centre.longitude, radiusMetres: 5_000, limit: 100)
    }

    static func ids(_ page: VenueFinder.Page) -> [String] { page.hits.map(\.venue.externalID) }

    /// The LISTEN backends of this test's database.
    static func listeners(_ database: PostgresClient) async throws -> Int {
        try await database.count(
            "pg_stat_activity", where: "query LIKE 'LISTEN%hearclear_reads%' AND datname = current_database()")
    }

    static func listener(_ engine: Engine, retryDelay: Duration) -> ReadCacheListener {
        var listener = ReadCacheListener(
            cache: ReadCache(capacityBytes: 0), index: engine.searchIndex, changes: engine.readChanges,
            gate: StartupGate(open: true), outage: engine.outage, logger: testLogger)
        listener.retryDelay = retryDelay
        return listener
    }

    @Test("PostgreSQL answers until the index is loaded; then the index, following every change")
    func loadsAndFollowsChanges() async throws {
        try await withTestDatabase { database, _ in
            try await SearchTests.seed(SearchTests.city(), client: database)
            let engine = Engine(client: database, configuration: Self.configuration, logger: testLogger)
            let index = engine.searchIndex
            let expected = SearchTests.city().filter { SearchTests.distance(to: $0) <= 5_000 }
                .sorted { SearchTests.distance(to: $0) < SearchTests.distance(to: $1) }.map(\.id)
            #expect(expected.count == 40)

            // Not listening yet: stale, and PostgreSQL answers.
            #expect(index.status.phase == .stale)
            #expect(index.search(Self.query) == nil)
            #expect(Self.ids(try await engine.finder.search(Self.everything, bands: .standard)) == expected)

            // Loading (told to load, not loaded yet): PostgreSQL answers.
            index.listening()
            #expect(index.status.phase == .loading)
            #expect(index.search(Self.query) == nil)
            #expect(Self.ids(try await engine.finder.search(Self.everything, bands: .standard)) == expected)

            let service = Task { await SearchIndexService(index: index, engine: engine).run() }
            defer { service.cancel() }
            // A listener that, once lost, does not come back by itself.
            let first = Task { try await Self.listener(engine, retryDelay: .seconds(3_600)).run() }
            defer { first.cancel() }
            _ = try await eventually("the index loaded") { index.status.phase == .ready ? true : nil }
            #expect(index.status.venues == 40)
            #expect(index.search(Self.query)?.map(\.venue.externalID) == expected)
            #expect(Self.ids(try await engine.finder.search(Self.everything, bands: .standard)) == expected)

            // A venue created at the centre: the nearest of all.
            try await database.query(
                """
                INSERT INTO venues (external_id, name, latitude, longitude, timezone, category)
                VALUES ('fresh', 'Fresh', \(Self.centre.latitude), \(Self.centre.longitude), 'Europe/London', 'pub')
                """, logger: testLogger)
            let found = try await eventually("the new venue in the index") {
                index.search(Self.query)?.first?.venue.externalID == "fresh" ? true : nil
            }
            #expect(found)

            // Its cells written the worker's way: cells, `venue_levels`, and the venue's read change.
            try await database.query(
                """
                WITH v AS (SELECT id FROM venues WHERE external_id = 'fresh')
                INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs,
                                            scale_db, checkins, devices, confidence)
                SELECT v.id, 5, 21, -52.5, -54, -50, 2, 3, 2, 'medium' FROM v
                """, logger: testLogger)
            try await database.query(
                """
                SELECT refresh_venue_levels(array_agg(id)), pg_notify('hearclear_reads', 'venue:fresh')
                FROM venues WHERE external_id = 'fresh'
                """, logger: testLogger)
            // Friday 21:00 in London (winter: UTC) is 2026-11-27T21:00Z; 110 − 52.5 = 57.5 dB.
            let friday = Date(timeIntervalSince1970: 1_795_813_200)
            var quiet = Self.everything
            quiet.at = friday
            quiet.maxLevelDB = 58
            let level = try await eventually("the new cell searched from the index") {
                var query = Self.query
                query.at = friday
                query.filter = .init(maximumDB: 58)
                return index.search(query)?.first { $0.venue.externalID == "fresh" }?.cell.map {
                    Double($0.cell.levelDBFS)
                }
            }
            #expect(level == -52.5)
            let page = try await engine.finder.search(quiet, bands: .standard)
            #expect(page.hits.first?.venue.externalID == "fresh")
            #expect(page.hits.first?.cell?.levelDB == 57.5)

            // Deleted: gone.
            try await database.query("DELETE FROM venues WHERE external_id = 'fresh'", logger: testLogger)
            _ = try await eventually("the deleted venue gone from the index") {
                index.search(Self.query)?.map(\.venue.externalID) == expected ? true : nil
            }
            #expect(index.status.venues == 40)

            // The listener's connection killed: stale, and PostgreSQL answers, changes included.
            try await database.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE query LIKE 'LISTEN%hearclear_reads%' AND datname = current_database()
                """, logger: testLogger)
            _ = try await eventually("the index stale") { index.status.phase == .stale ? true : nil }
            #expect(index.search(Self.query) == nil)
            #expect(index.status.venues == 0)
            try await database.query(
                """
                INSERT INTO venues (external_id, name, latitude, longitude)
                VALUES ('while-away', 'While away', \(Self.centre.latitude), \(Self.centre.longitude))
                """, logger: testLogger)
            #expect(
                Self.ids(try await engine.finder.search(Self.everything, bands: .standard)) == ["while-away"] + expected
            )

            // Listening again (a new listener here): loaded again, with what changed meanwhile.
            first.cancel()
            let second = Task { try await Self.listener(engine, retryDelay: .milliseconds(100)).run() }
            defer { second.cancel() }
            _ = try await eventually("loaded again") {
                index.status.phase == .ready && index.status.venues == 41 ? true : nil
            }
            #expect(index.search(Self.query)?.first?.venue.externalID == "while-away")
        }
    }

    @Test("`--search-index off`: nothing is loaded and PostgreSQL answers")
    func off() async throws {
        try await withTestDatabase { database, _ in
            try await SearchTests.seed(SearchTests.city(), client: database)
            var configuration = Self.configuration
            configuration.searchIndex = false
            let engine = Engine(client: database, configuration: configuration, logger: testLogger)
            let index = engine.searchIndex
            #expect(index.status.phase == .off)
            // The listener's news changes nothing, and the service has nothing to do.
            index.listening()
            index.notified(.venue(externalID: "city-1"))
            await SearchIndexService(index: index, engine: engine).run()
            #expect(index.status.phase == .off)
            #expect(index.search(Self.query) == nil)
            let page = try await engine.finder.search(Self.everything, bands: .standard)
            #expect(page.hits.count == 40)
        }
    }

    @Test("a server starts and searches with `--search-index off` as with it on")
    func serverWithAndWithout() async throws {
        for enabled in [false, true] {
            let configure: (inout ServerConfiguration) -> Void = { $0.engine.searchIndex = enabled }
            try await EngineTestApp.run(configure: configure) { client, database in
                try await SearchTests.seed(SearchTests.city(), client: database)
                let body = try #require(
                    try await JSONProbe.get("/api/v2/venues?\(SearchTests.near)&radius=5000&limit=100", from: client))
                #expect(SearchTests.ids(body).count == 40)
                // Still serving (a service that ended would have ended the server).
                #expect(try await client.execute(uri: "/health", method: .get) { $0.status } == .ok)
            }
        }
    }

    @Test("`--search-index` takes `on` (the default) or `off`, and refuses anything else naming it")
    func setting() throws {
        func read(_ arguments: [String]) throws -> ServerConfiguration {
            let values = try SettingFlags.values(arguments, settings: ServerSettings.all)
            return try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: values)))
        }
        #expect(try read([]).engine.searchIndex)
        #expect(try read(["--search-index", "on"]).engine.searchIndex)
        #expect(try !read(["--search-index", "off"]).engine.searchIndex)
        #expect(throws: ConfigurationError.self) { try read(["--search-index", "maybe"]) }
        do {
            _ = try read(["--search-index", "maybe"])
        } catch {
            #expect("\(error)".contains("search index must be 'on' or 'off', not 'maybe'"))
        }
    }
}
