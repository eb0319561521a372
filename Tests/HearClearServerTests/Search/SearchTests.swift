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

/// A synthetic city for search: venues at known coordinates in two time zones (and some without
/// one), with cells written straight into `loudness_cells` and `venue_levels` rebuilt from them by
/// the same function the worker calls. Distances are checked against the haversine formula
/// computed here, on the sphere PostGIS uses (radius 6,371,008.8 m).
@Suite("Search: venues near a point by their loudness at an hour")
struct SearchTests {
    static let centre = (latitude: 51.5072, longitude: -0.1276)
    /// Calibrated dB = dBFS + 110 (the default reference offset).
    static let reference = 110.0

    struct CityVenue {
        var id: String
        var latitude: Double
        var longitude: Double
        var timezone: String?
        var category: String
        /// Cells as (weekday, hour) → calibrated dB.
        var cells: [LocalHour: Double]
    }

    /// Haversine on the sphere of PostGIS's `use_spheroid => false` (its mean radius).
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8
        let rad = Double.pi / 180
        let a =
            pow(sin((lat2 - lat1) * rad / 2), 2) + cos(lat1 * rad) * cos(lat2 * rad)
            * pow(sin((lon2 - lon1) * rad / 2), 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }

    /// 40 venues on a deterministic spiral around the centre out to about 4 km; every third in
    /// New York's zone, every seventh without a zone; every other one with cells.
    static func city() -> [CityVenue] {
        (0..<40).map { index in
            let angle = Double(index) * 2.399963  // the golden angle: no two venues on one ray
            let metres = 100.0 * Double(index + 1)
            let latitude = centre.latitude + metres * cos(angle) / 111_195
            let longitude = centre.longitude + metres * sin(angle) / (111_195 * cos(centre.latitude * .pi / 180))
            let timezone: String? =
                index % 7 == 6 ? nil : index % 3 == 0 ? "America/New_York" : "Europe/London"
            var cells: [LocalHour: Double] = [:]
            if index % 2 == 0 {
                // Friday evenings, louder with the index; a quiet Monday noon for every fourth.
                for hour in 17...23 {
                    cells[LocalHour(weekday: 5, hour: hour)] = 60 + Double(index % 25) + Double(hour - 17) * 0.5
                }
                if index % 4 == 0 { cells[LocalHour(weekday: 1, hour: 12)] = 55 + Double(index % 5) }
            }
            return CityVenue(
                id: "city-\(index)", latitude: latitude, longitude: longitude, timezone: timezone,
                category: index % 2 == 0 ? "pub" : "cafe", cells: cells)
        }
    }

    /// Creates the venues and their cells, and builds `venue_levels` as the worker does.
    static func seed(_ venues: [CityVenue], client: PostgresClient) async throws {
        for venue in venues {
            let rows = try await client.query(
                """
                INSERT INTO venues (external_id, name, latitude, longitude, timezone, category)
                VALUES (\(venue.id), \(venue.id), \(venue.latitude), \(venue.longitude), \(venue.timezone),
                        \(venue.category))
                RETURNING id
                """, logger: testLogger)
            var key: Int64 = 0
            for try await id in rows.decode(Int64.self) { key = id }
            for (cell, level) in venue.cells {
                let dbfs = level - reference
                try await client.query(
                    """
                    INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs,
                                                scale_db, checkins, devices, confidence)
                    VALUES (\(key), \(Int16(cell.weekday)), \(Int16(cell.hour)), \(Float(dbfs)), \(Float(dbfs - 2)),
                            \(Float(dbfs + 2)), 2, 3, 2, 'medium')
                    """, logger: testLogger)
            }
        }
        try await client.query(
            "SELECT refresh_venue_levels(array_agg(id)) FROM venues WHERE external_id = ANY(\(venues.map(\.id)))",
            logger: testLogger)
    }

    static func results(_ body: [String: Any]) -> [[String: Any]] { body["results"] as? [[String: Any]] ?? [] }
    static func ids(_ body: [String: Any]) -> [String] {
        results(body).compactMap { ($0["venue"] as? [String: Any])?["id"] as? String }
    }
    static func distance(to venue: CityVenue) -> Double {
        haversine(centre.latitude, centre.longitude, venue.latitude, venue.longitude)
    }
    static let near = "near=\(centre.latitude),\(centre.longitude)"

    /// The local cell of `venue` at `instant`, by Foundation's calendar (not the server's code).
    static func localHour(of venue: CityVenue, at instant: Date) -> LocalHour? {
        guard let zone = venue.timezone.flatMap(TimeZone.init(identifier:)) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.weekday, .hour], from: instant)
        // Foundation: 1 = Sunday … 7 = Saturday; ISO: 1 = Monday … 7 = Sunday.
        return LocalHour(weekday: (parts.weekday! + 5) % 7 + 1, hour: parts.hour!)
    }

    @Test func resultsAndTheirOrderMatchHaversineDistances() async throws {
        try await withRouterApp { client, database in
            let city = Self.city()
            try await Self.seed(city, client: database)
            let body = try #require(
                try await JSONProbe.get("/api/v2/venues?\(Self.near)&radius=2000&limit=100", from: client))
            let expected = city.filter { Self.distance(to: $0) <= 2000 }.sorted {
                Self.distance(to: $0) < Self.distance(to: $1)
            }
            #expect(Self.ids(body) == expected.map(\.id))
            for (result, venue) in zip(Self.results(body), expected) {
                let reported = try #require(result["distance"] as? Double)
                #expect(abs(reported - Self.distance(to: venue)) <= 0.06)
                #expect(result["loudness"] is NSNull)  // no `at`: no cell used
            }
            #expect(body["next"] is NSNull)
            // Default radius: 1,000 m.
            let nearby = try #require(try await JSONProbe.get("/api/v2/venues?\(Self.near)&limit=100", from: client))
            #expect(Self.ids(nearby) == expected.filter { Self.distance(to: $0) <= 1000 }.map(\.id))
            // Category.
            let pubs = try #require(
                try await JSONProbe.get("/api/v2/venues?\(Self.near)&radius=2000&limit=100&category=pub", from: client))
            #expect(Self.ids(pubs) == expected.filter { $0.category == "pub" }.map(\.id))
        }
    }

    @Test func atPicksEachVenuesOwnLocalCell() async throws {
        try await withRouterApp { client, database in
            let city = Self.city()
            try await Self.seed(city, client: database)
            // Friday 2026-11-27 21:30 in London is 16:30 in New York.
            for at in ["2026-11-27T21:30:00Z", "2026-11-27T23:10:00+01:00", "2026-11-28T03:00:00Z"] {
                let instant = try #require(RFC3339.parse(at)).date
                let encoded = at.replacingOccurrences(of: "+", with: "%2B")
                let body = try #require(
                    try await JSONProbe.get(
                        "/api/v2/venues?\(Self.near)&radius=5000&limit=100&at=\(encoded)", from: client))
                #expect(Self.results(body).count == city.count)
                for result in Self.results(body) {
                    let id = try #require((result["venue"] as? [String: Any])?["id"] as? String)
                    let venue = try #require(city.first { $0.id == id })
                    guard let local = Self.localHour(of: venue, at: instant), let level = venue.cells[local] else {
                        // Venues without a zone have no check-ins here, so no clock: no cell.
                        #expect(result["loudness"] is NSNull, "\(id) at \(at)")
                        continue
                    }
                    let loudness = try #require(result["loudness"] as? [String: Any], "\(id) at \(at)")
                    #expect(loudness["day"] as? String == local.weekdayName)
                    #expect(loudness["hour"] as? Int == local.hour)
                    #expect(loudness["level"] as? Double == (level * 10).rounded() / 10)
                    #expect(loudness["estimated"] as? Bool == false)
                    #expect(
                        loudness["range"] as? [Double] == [
                            (level * 10).rounded() / 10 - 2, (level * 10).rounded() / 10 + 2,
                        ])
                }
            }
        }
    }

    @Test func filtersKeepOnlyVenuesWhoseLevelPasses() async throws {
        try await withRouterApp { client, database in
            let city = Self.city()
            try await Self.seed(city, client: database)
            let at = "2026-11-27T21:30:00Z"
            let instant = try #require(RFC3339.parse(at)).date
            func level(_ venue: CityVenue) -> Double? {
                Self.localHour(of: venue, at: instant).flatMap { venue.cells[$0] }.map { ($0 * 10).rounded() / 10 }
            }
            let inRadius = city.filter { Self.distance(to: $0) <= 5000 }.sorted {
                Self.distance(to: $0) < Self.distance(to: $1)
            }
            // Default bands: quiet < 70 ≤ moderate < 75 ≤ loud < 80 ≤ very loud.
            let quiet = try #require(
                try await JSONProbe.get(
                    "/api/v2/venues?\(Self.near)&radius=5000&limit=100&at=\(at)&label=quiet", from: client))
            #expect(Self.ids(quiet) == inRadius.filter { level($0).map { $0 < 70 } ?? false }.map(\.id))
            #expect(!Self.ids(quiet).isEmpty)
            let two = try #require(
                try await JSONProbe.get(
                    "/api/v2/venues?\(Self.near)&radius=5000&limit=100&at=\(at)&label=quiet,very%20loud", from: client))
            #expect(Self.ids(two) == inRadius.filter { level($0).map { $0 < 70 || $0 >= 80 } ?? false }.map(\.id))
            let capped = try #require(
                try await JSONProbe.get(
                    "/api/v2/venues?\(Self.near)&radius=5000&limit=100&at=\(at)&maxLevel=72.5", from: client))
            #expect(Self.ids(capped) == inRadius.filter { level($0).map { $0 <= 72.5 } ?? false }.map(\.id))
            // Without `at`, the overall level (median of the venue's cells) is what passes.
            func overall(_ venue: CityVenue) -> Double? {
                let levels = venue.cells.values.sorted()
                guard !levels.isEmpty else { return nil }
                let middle = levels.count / 2
                let median = levels.count % 2 == 1 ? levels[middle] : (levels[middle - 1] + levels[middle]) / 2
                return (median * 10).rounded() / 10
            }
            let overallQuiet = try #require(
                try await JSONProbe.get("/api/v2/venues?\(Self.near)&radius=5000&limit=100&maxLevel=70", from: client))
            #expect(Self.ids(overallQuiet) == inRadius.filter { overall($0).map { $0 <= 70 } ?? false }.map(\.id))
            for result in Self.results(overallQuiet) {
                let venue = try #require(result["venue"] as? [String: Any])
                let expected = city.first { $0.id == venue["id"] as? String }.flatMap(overall)
                #expect(venue["level"] as? Double == expected)
            }
        }
    }

    @Test func pagesNeitherRepeatNorSkipAVenue() async throws {
        try await withRouterApp { client, database in
            let city = Self.city()
            try await Self.seed(city, client: database)
            for query in [
                "\(Self.near)&radius=5000", "\(Self.near)&radius=5000&sort=level&at=now",
                "\(Self.near)&radius=5000&sort=level", "\(Self.near)&radius=5000&label=quiet,moderate,loud&at=now",
            ] {
                let whole = try #require(try await JSONProbe.get("/api/v2/venues?\(query)&limit=100", from: client))
                var paged: [String] = []
                var next: String? = "/api/v2/venues?\(query)&limit=3"
                var pages = 0
                while let uri = next {
                    let page = try #require(try await JSONProbe.get(uri, from: client), "\(uri)")
                    #expect(Self.results(page).count <= 3)
                    paged += Self.ids(page)
                    next = page["next"] as? String
                    pages += 1
                    #expect(pages <= 20)
                    if pages > 20 { break }
                }
                #expect(paged == Self.ids(whole), "\(query)")
                #expect(Set(paged).count == paged.count)
            }
            // sort=level: quietest first, venues without a level last.
            let byLevel = try #require(
                try await JSONProbe.get("/api/v2/venues?\(Self.near)&radius=5000&limit=100&sort=level", from: client))
            let levels = Self.results(byLevel).map { ($0["venue"] as? [String: Any])?["level"] as? Double ?? .infinity }
            #expect(levels == levels.sorted())
        }
    }

    @Test func everyBadParameterIsA422NamingIt() async throws {
        try await withRouterApp { client, database in
            try await Self.seed(Array(Self.city().prefix(5)), client: database)
            let first = try #require(try await JSONProbe.get("/api/v2/venues?\(Self.near)&limit=1", from: client))
            let next = try #require(first["next"] as? String)
            let cursor = try #require(next.components(separatedBy: "cursor=").last)
            let cases: [(String, String)] = [
                ("", "near"), ("near=95,0", "near"), ("near=51.5", "near"), ("near=a,b", "near"),
                ("near=51.5,181", "near"), ("\(Self.near)&radius=0", "radius"), ("\(Self.near)&radius=50001", "radius"),
                ("\(Self.near)&radius=far", "radius"), ("\(Self.near)&at=yesterday", "at"),
                ("\(Self.near)&at=2026-11-27T21:00:00", "at"), ("\(Self.near)&maxLevel=loud", "maxLevel"),
                ("\(Self.near)&maxLevel=-3", "maxLevel"), ("\(Self.near)&label=loudish", "label"),
                ("\(Self.near)&label=quiet,", "label"), ("\(Self.near)&limit=0", "limit"),
                ("\(Self.near)&limit=101", "limit"),
                ("\(Self.near)&limit=2.5", "limit"), ("\(Self.near)&cursor=not-a-cursor", "cursor"),
                ("\(Self.near)&radius=900&cursor=\(cursor)", "cursor"), ("\(Self.near)&sort=loudness", "sort"),
                ("\(Self.near)&category=", "category"), ("\(Self.near)&category=a%00b", "category"),
                ("\(Self.near)&at=9999-12-31T23:59:59-23:59", "at"),
            ]
            for (query, parameter) in cases {
                try await client.execute(uri: "/api/v2/venues?\(query)", method: .get) { response in
                    #expect(response.status == .unprocessableContent, "\(query)")
                    let problem = try JSONProbe.object(response.body)
                    let pointers = (problem["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
                    #expect(pointers == [parameter], "\(query)")
                }
            }
            for path in ["alternatives?radius=0", "alternatives?at=soon", "similar?limit=1000"] {
                try await client.execute(uri: "/api/v2/venues/city-0/\(path)", method: .get) { response in
                    #expect(response.status == .unprocessableContent, "\(path)")
                }
            }
            for path in ["alternatives", "similar"] {
                try await client.execute(uri: "/api/v2/venues/nowhere/\(path)", method: .get) { response in
                    #expect(response.status == .notFound)
                }
            }
        }
    }

    @Test func alternativesAreQuieterByThreeDecibelsOrABandNearestFirst() async throws {
        try await withRouterApp { client, database in
            let friday = LocalHour(weekday: 5, hour: 21)
            func venue(_ id: String, metresNorth: Double, level: Double?) -> CityVenue {
                CityVenue(
                    id: id, latitude: Self.centre.latitude + metresNorth / 111_195, longitude: Self.centre.longitude,
                    timezone: "Europe/London", category: "pub", cells: level.map { [friday: $0] } ?? [:])
            }
            try await Self.seed(
                [
                    venue("loud-one", metresNorth: 0, level: 76.0),  // loud
                    venue("a-bit-quieter", metresNorth: 100, level: 74.5),  // 1.5 dB, but moderate: a band below
                    venue("same-band", metresNorth: 150, level: 77.5),  // louder
                    venue("much-quieter", metresNorth: 300, level: 62.0),  // 14 dB
                    venue("just-three", metresNorth: 200, level: 73.0),  // exactly 3 dB
                    venue("close-but-loud", metresNorth: 50, level: 75.2),  // 0.8 dB, same band: no
                    venue("no-data", metresNorth: 60, level: nil),
                    venue("far-quiet", metresNorth: 3000, level: 50.0),  // beyond the radius
                ], client: database)
            let body = try #require(
                try await JSONProbe.get(
                    "/api/v2/venues/loud-one/alternatives?at=2026-11-27T21:15:00Z&radius=1000", from: client))
            let alternatives = body["alternatives"] as? [[String: Any]] ?? []
            #expect(
                alternatives.compactMap { ($0["venue"] as? [String: Any])?["id"] as? String } == [
                    "a-bit-quieter", "just-three", "much-quieter",
                ])
            #expect(alternatives.compactMap { $0["quieterBy"] as? Double } == [1.5, 3.0, 14.0])
            #expect((body["loudness"] as? [String: Any])?["level"] as? Double == 76.0)
            // The 3 dB rule alone: from 79.0 (loud, 75–80), 76.0 is 3 dB quieter, 76.1 is not.
            try await Self.seed(
                [venue("top", metresNorth: 10, level: 79.0), venue("edge", metresNorth: 20, level: 76.1)],
                client: database)
            let top = try #require(
                try await JSONProbe.get(
                    "/api/v2/venues/top/alternatives?at=2026-11-27T21:15:00Z&limit=100", from: client))
            #expect(
                (top["alternatives"] as? [[String: Any]] ?? []).compactMap {
                    ($0["venue"] as? [String: Any])?["id"] as? String
                }
                    == ["loud-one", "close-but-loud", "a-bit-quieter", "just-three", "much-quieter"])
            // At an hour the venue has no cell, nothing is compared.
            let monday = try #require(
                try await JSONProbe.get("/api/v2/venues/loud-one/alternatives?at=2026-11-23T12:00:00Z", from: client))
            #expect(monday["loudness"] is NSNull)
            #expect((monday["alternatives"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func similarVenuesAreRankedByTheirDifferenceOverSharedCells() async throws {
        try await withRouterApp { client, database in
            let hours = (17...22).map { LocalHour(weekday: 5, hour: $0) }
            let base = Dictionary(uniqueKeysWithValues: hours.enumerated().map { ($1, 65 + Double($0)) })
            func venue(_ id: String, metresEast: Double, cells: [LocalHour: Double]) -> CityVenue {
                CityVenue(
                    id: id, latitude: Self.centre.latitude,
                    longitude: Self.centre.longitude + metresEast / (111_195 * cos(Self.centre.latitude * .pi / 180)),
                    timezone: "Europe/London", category: "pub", cells: cells)
            }
            // RMS differences by hand: +1 dB everywhere → 1; +5 → 5; ±2 alternating → 2.
            try await Self.seed(
                [
                    venue("model", metresEast: 0, cells: base),
                    venue("close-twin", metresEast: 400, cells: base.mapValues { $0 + 1 }),
                    venue("louder-twin", metresEast: 100, cells: base.mapValues { $0 + 5 }),
                    venue(
                        "wobbly", metresEast: 200,
                        cells: Dictionary(
                            uniqueKeysWithValues: hours.enumerated().map { ($1, base[$1]! + ($0 % 2 == 0 ? 2 : -2)) })),
                    venue("two-shared", metresEast: 50, cells: [hours[0]: 65, hours[1]: 66]),
                    venue("far-twin", metresEast: 9000, cells: base),
                ], client: database)
            let body = try #require(try await JSONProbe.get("/api/v2/venues/model/similar", from: client))
            let similar = body["similar"] as? [[String: Any]] ?? []
            #expect(
                similar.compactMap { ($0["venue"] as? [String: Any])?["id"] as? String } == [
                    "close-twin", "wobbly", "louder-twin",
                ])
            #expect(similar.compactMap { $0["difference"] as? Double } == [1.0, 2.0, 5.0])
            #expect(similar.compactMap { $0["sharedCells"] as? Int } == [6, 6, 6])
            let wide = try #require(try await JSONProbe.get("/api/v2/venues/model/similar?radius=10000", from: client))
            #expect(
                ((wide["similar"] as? [[String: Any]])?.first?["venue"] as? [String: Any])?["id"] as? String
                    == "far-twin")
        }
    }

    /// Check-ins through the real ingest and aggregation, at (0, 0) as the fixture places venues.
    static func ingest(
        venue: String, timezone: String?, device: String, levelDBFS: Double, start: Date, utcOffsetMinutes: Int16 = 0,
        client: PostgresClient
    ) async throws {
        let submission = SubmissionFixture.submission(
            venue: venue, timezone: timezone, device: device, levelDBFS: levelDBFS, start: start,
            utcOffsetsMinutes: [utcOffsetMinutes])
        _ = try await Engine.testing(client) { $0.maxDistanceMetres = 1e7 }.intake.submit(submission)
    }

    static func recompute(_ venue: String, client: PostgresClient) async throws {
        #expect(try await Engine.testing(client).recomputation().venue(externalID: venue))
    }

    @Test func aVenueWithoutAZoneUsesTheOffsetItsCheckinsCarried() async throws {
        try await withRouterApp { client, database in
            // Two phones at UTC+02:00, Friday 2026-11-27 19:10 UTC = 21:10 local.
            for device in ["zoneless-a-0001", "zoneless-b-0002"] {
                try await Self.ingest(
                    venue: "zoneless", timezone: nil, device: device, levelDBFS: -45,
                    start: try #require(RFC3339.parse("2026-11-27T19:10:00Z")).date, utcOffsetMinutes: 120,
                    client: database)
            }
            try await Self.recompute("zoneless", client: database)
            let body = try #require(
                try await JSONProbe.get("/api/v2/venues?near=0,0&radius=100&at=2026-11-27T19:45:00Z", from: client))
            let loudness = try #require(Self.results(body).first?["loudness"] as? [String: Any])
            #expect(loudness["day"] as? String == "friday")
            #expect(loudness["hour"] as? Int == 21)
            let other = try #require(
                try await JSONProbe.get("/api/v2/venues?near=0,0&radius=100&at=2026-11-27T21:45:00Z", from: client))
            #expect(Self.results(other).first?["loudness"] is NSNull)
        }
    }

    @Test func anEmptyCellGetsAnHonestEstimateFromTheVenuesPatternAndV1NeverSeesIt() async throws {
        try await withRouterApp { client, database in
            // Monday 16 to Wednesday 18 November 2026 (London is at UTC+0 then), at 12, 13 and 20 h,
            // three phones each: level = −50 dBFS, +12 dB at 20 h, +2 dB on Tuesdays. Wednesday 20 h
            // is left empty; an additive profile predicts −50 + 12 = −38 dBFS = 72 dB there.
            for day in 16...18 {
                for hour in [12, 13, 20] where !(day == 18 && hour == 20) {
                    let level = -50.0 + (hour == 20 ? 12 : 0) + (day == 17 ? 2 : 0)
                    for phone in 1...3 {
                        try await Self.ingest(
                            venue: "pattern", timezone: "Europe/London", device: "pattern-phone-000\(phone)",
                            levelDBFS: level,
                            start: try #require(RFC3339.parse("2026-11-\(day)T\(hour):1\(phone):00Z")).date,
                            client: database)
                    }
                }
            }
            try await Self.recompute("pattern", client: database)
            let grid = try #require(try await JSONProbe.get("/api/v2/venues/pattern/loudness", from: client))
            let estimate = try #require(JSONProbe.cell(grid, day: "wednesday", hour: 20))
            #expect(estimate["estimated"] as? Bool == true)
            #expect(estimate["basis"] as? String == "venue_pattern")
            #expect(estimate["checkins"] as? Int == 0)
            #expect(estimate["devices"] as? Int == 0)
            #expect(estimate["confidence"] as? String == "low")
            let level = try #require(estimate["level"] as? Double)
            #expect(abs(level - 72) <= 0.5)
            let range = try #require(estimate["range"] as? [Double])
            let days = grid["days"] as? [[String: Any]] ?? []
            let measured = days.flatMap { $0["hours"] as? [[String: Any]] ?? [] }.filter {
                $0["estimated"] as? Bool == false
            }
            #expect(measured.count == 8)
            #expect(measured.allSatisfy { $0["basis"] == nil }, "a measured cell has no basis")
            // Wider than a typical measured cell's (their median width), and at least ±2.9 dB.
            let widths = try measured.map { cell in
                let measuredRange = try #require(cell["range"] as? [Double])
                return measuredRange[1] - measuredRange[0]
            }.sorted()
            #expect(range[1] - range[0] > (widths[3] + widths[4]) / 2)
            #expect(range[1] - range[0] >= 2 * 1.96 * 1.5 - 0.2)
            // No basis for 3 am (no check-ins at 3 h on any day) or Thursday (none on Thursdays).
            #expect(JSONProbe.cell(grid, day: "wednesday", hour: 3) == nil)
            #expect(JSONProbe.cell(grid, day: "thursday", hour: 12) == nil)
            // The venue's overall level is the median of the measured cells only: 60 ×4, 62 ×2, 72, 74
            // → 61 (the estimate, 72, would make it 62).
            let venue = try #require(try await JSONProbe.get("/api/v2/venues/pattern", from: client))
            #expect(abs((venue["level"] as? Double ?? 0) - 61) <= 0.5)
            // v1 shows only the measured cells.
            let volinfo = try #require(try await JSONProbe.get("/api/v1/venue/pattern/volume", from: client))
            let wednesday = (volinfo["volinfo"] as? [String: Any])?["Wed"] as? [[String: Any]] ?? []
            #expect(wednesday.compactMap { $0["time"] as? String } == ["12:00", "13:00"])
            // Search shows the estimate as one.
            let found = try #require(
                try await JSONProbe.get("/api/v2/venues?near=0,0&radius=100&at=2026-11-25T20:30:00Z", from: client))
            let loudness = try #require(Self.results(found).first?["loudness"] as? [String: Any])
            #expect(loudness["estimated"] as? Bool == true)
            #expect(loudness["basis"] as? String == "venue_pattern")
            #expect(loudness["level"] as? Double == level)
        }
    }
}
