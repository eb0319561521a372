import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// The search index answers exactly as PostGIS does (issue 25, "Equivalence, proven"): random
/// cities in the embedded PostgreSQL — several zones, venues without a zone (some with a UTC
/// offset, some without any clock), many venues at one coordinate, equal distances, a city across
/// the antimeridian and one near the north pole, measured and estimated cells — and many random
/// searches (both orders, every filter, several pages), alternatives and similar venues, each
/// asked of a finder answering from the index and of one answering from PostgreSQL. Distances are
/// compared as doubles, with no tolerance: the index measures as `<->` does (`SphereDistance`)
/// and PostgreSQL decides "within the radius" by `<->` too.
@Suite("Search index: the same answers as PostGIS")
struct SearchIndexEquivalenceTests {

    /// A place venues are spread around: centre, spread (degrees of latitude), zones to choose from.
    struct Town {
        var name: String
        var latitude: Double
        var longitude: Double
        var spreadDegrees: Double
        var zones: [String?]
    }

    static let towns = [
        Town(
            name: "sydney", latitude: -33.87, longitude: 151.21, spreadDegrees: 0.03,
            zones: ["Australia/Sydney", "Australia/Sydney", nil]),
        Town(
            name: "fiji", latitude: -17.8, longitude: 179.995, spreadDegrees: 0.02,
            zones: ["Pacific/Fiji", "Pacific/Auckland", nil]),
        Town(
            name: "pole", latitude: 89.98, longitude: 20, spreadDegrees: 0.015,
            zones: ["Arctic/Longyearbyen", nil]),
        Town(
            name: "kathmandu", latitude: 27.7172, longitude: 85.324, spreadDegrees: 0.02,
            zones: ["Asia/Kathmandu", "America/New_York", nil]),
    ]
    static let categories: [String?] = ["pub", "cafe", "bar", nil]
    /// Words of names: accents, cases, ligatures, full-width letters, apostrophes, and Cyrillic,
    /// Greek, Devanagari, Japanese and Chinese.
    static let nameWords = [
        "Café", "cafe", "CAFÉ", "Quiet", "Corner", "Ölbar", "Straße", "Strasse", "Łódź", "Zürich", "Smørrebrød",
        "Ærø", "İstanbul", "ＡＢＣ", "ﬁsh", "O'Neill's", "King's", "Arms", "The", "Tap", "Room", "Москва", "кафе",
        "Αθήνα", "ΑΘΗΝΑ", "σοφός", "बाज़ार", "カフェ", "ガード", "東京", "咖啡馆", "1900", "№5", "a", "Ab",
    ]
    static let reference = 110.0

    struct Seeded {
        var externalIDs: [String]
        /// Points of equal distances and shared coordinates, worth searching from exactly.
        var specialPoints: [(latitude: Double, longitude: Double)]
    }

    /// Writes `count` venues per town, their cells and counts, and `venue_levels` as the worker
    /// builds it (`refresh_venue_levels`), plus UTC offsets for some venues without a zone.
    static func seed(_ client: PostgresClient, random: inout SplitMix64, perTown count: Int) async throws -> Seeded {
        var ids: [String] = []
        var names: [String] = []
        var latitudes: [Double] = []
        var longitudes: [Double] = []
        var zones: [String?] = []
        var categories: [String?] = []
        var addresses: [String?] = []
        var special: [(Double, Double)] = []
        // Names from a stream of their own: the rest of the city is as it was before names had words.
        var nameRandom = SplitMix64(seed: 4040)
        func add(_ lat: Double, _ lon: Double, zone: String?, category: String?) {
            let index = ids.count
            ids.append("eq-\(index)")
            if index % 2 == 0 {
                names.append("Venue \(index) with a name longer than fifteen bytes")
            } else {
                // Names of one to four words in several scripts, with accents and look-alikes.
                names.append(
                    (0..<nameRandom.int(in: 1...4)).map { _ in nameRandom.pick(Self.nameWords) }.joined(
                        separator: " "))
            }
            latitudes.append(min(90, max(-90, lat)))
            var longitude = lon
            if longitude > 180 { longitude -= 360 }
            if longitude < -180 { longitude += 360 }
            longitudes.append(longitude)
            zones.append(zone)
            categories.append(category)
            addresses.append(index % 3 == 0 ? nil : "\(index) Long Street")
        }
        for town in towns {
            let cosine = max(0.05, cos(town.latitude * .pi / 180))
            for _ in 0..<count {
                let lat = town.latitude + (random.unit() - 0.5) * 2 * town.spreadDegrees
                let lon = town.longitude + (random.unit() - 0.5) * 2 * town.spreadDegrees / cosine
                add(lat, lon, zone: random.pick(town.zones), category: random.pick(Self.categories))
            }
            // Eight venues at one coordinate; four at equal distances east, west, north-east
            // mirrored (same latitude, longitudes ± d) from a point.
            let cluster = (town.latitude + 0.001, town.longitude)
            special.append(cluster)
            for _ in 0..<8 {
                add(cluster.0, cluster.1, zone: random.pick(town.zones), category: random.pick(Self.categories))
            }
            let mirror = (town.latitude - 0.002, town.longitude + 0.0005)
            special.append(mirror)
            for d in [0.001, 0.003] {
                for sign in [-1.0, 1.0] {
                    add(
                        mirror.0, mirror.1 + sign * d / cosine, zone: random.pick(town.zones),
                        category: random.pick(Self.categories))
                }
            }
        }
        try await client.query(
            """
            INSERT INTO venues (external_id, name, name_key, latitude, longitude, timezone, category, address)
            SELECT id, name, key, lat, lon, nullif(zone, ''), nullif(category, ''), nullif(address, '')
            FROM unnest(\(ids)::text[], \(names)::text[], \(names.map(NameWords.key(of:)))::text[],
                        \(latitudes)::float8[], \(longitudes)::float8[],
                        \(zones.map { $0 ?? "" })::text[], \(categories.map { $0 ?? "" })::text[],
                        \(addresses.map { $0 ?? "" })::text[]) AS u(id, name, key, lat, lon, zone, category, address)
            """, logger: engineTestLogger)
        // Cells: 60 % of the venues; each hour measured with 15 %, else estimated with 25 %.
        var cellVenues: [String] = []
        var weekdays: [Int16] = []
        var hours: [Int16] = []
        var levels: [Float] = []
        var lows: [Float] = []
        var highs: [Float] = []
        var checkins: [Int32] = []
        var devices: [Int32] = []
        var confidences: [String] = []
        var bases: [String?] = []
        var countVenues: [String] = []
        var counts: [Int64] = []
        for id in ids {
            if random.chance(0.7) {
                countVenues.append(id)
                counts.append(Int64(random.int(in: 0...500)))
            }
            guard random.chance(0.6) else { continue }
            let base = 50 + random.unit() * 35
            for index in 0..<168 {
                let measured = random.chance(0.15)
                guard measured || random.chance(0.25) else { continue }
                // Levels with every decimal (rounding is part of what is compared).
                let level = Float(base + (random.unit() - 0.5) * 20 - Self.reference)
                cellVenues.append(id)
                weekdays.append(Int16(index / 24 + 1))
                hours.append(Int16(index % 24))
                levels.append(level)
                lows.append(level - Float(random.unit() * 5))
                highs.append(level + Float(random.unit() * 5))
                let people = measured ? Int32(random.int(in: 1...9)) : 0
                checkins.append(people)
                devices.append(measured ? max(1, people - 1) : 0)
                confidences.append(random.pick(["low", "medium", "high"]))
                bases.append(measured ? nil : random.pick(["venue_pattern", "category_nearby"]))
            }
        }
        try await client.query(
            """
            INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs,
                                        scale_db, checkins, devices, confidence, estimated, basis)
            SELECT v.id, c.weekday, c.hour, c.level, c.low, c.high, 2, c.checkins, c.devices, c.confidence,
                   c.basis <> '', nullif(c.basis, '')
            FROM unnest(\(cellVenues)::text[], \(weekdays)::int2[], \(hours)::int2[], \(levels)::float4[],
                        \(lows)::float4[], \(highs)::float4[], \(checkins)::int4[], \(devices)::int4[],
                        \(confidences)::text[], \(bases.map { $0 ?? "" })::text[])
                 AS c(external_id, weekday, hour, level, low, high, checkins, devices, confidence, basis)
            JOIN venues v ON v.external_id = c.external_id
            """, logger: engineTestLogger)
        try await client.query(
            """
            INSERT INTO venue_counts (venue_id, checkins)
            SELECT v.id, c.n FROM unnest(\(countVenues)::text[], \(counts)::int8[]) AS c(external_id, n)
            JOIN venues v ON v.external_id = c.external_id
            """, logger: engineTestLogger)
        try await client.query("SELECT refresh_venue_levels(array_agg(id)) FROM venues", logger: engineTestLogger)
        // Venues without a zone: half keep an offset their check-ins would have carried.
        try await client.query(
            """
            UPDATE venue_levels s SET utc_offset_min = (ARRAY[-300, 0, 345, 660, 780])[1 + (s.venue_id % 5)::int]
            WHERE s.timezone IS NULL AND s.venue_id % 2 = 0
            """, logger: engineTestLogger)
        return Seeded(externalIDs: ids, specialPoints: special)
    }

    /// What a hit shows, every field compared.
    struct Shown: Equatable, CustomStringConvertible {
        var venue: Venue
        var checkins: Int
        var distance: Double
        var overallDB: Double?
        var overallLabel: String?
        var cell: LoudnessReads.Cell?
        var position: VenueSearchQuery.Position

        init(_ hit: VenueFinder.Hit) {
            venue = hit.venue
            checkins = hit.checkins
            distance = hit.distanceMetres
            overallDB = hit.overall?.levelDB
            overallLabel = hit.overall?.label
            cell = hit.cell
            position = hit.position
        }

        var description: String {
            "\(venue.externalID) d=\(distance) overall=\(overallDB.map { "\($0)" } ?? "-") cell=\(cell.map { "\($0.localHour) \($0.levelDB)" } ?? "-") pos=\(position)"
        }
    }

    static let instants: [Date] = {
        var dates = [Date]()
        // Around the DST changes of Sydney, New York and Fiji's zones, and random ones.
        for text in [
            "2026-04-04T15:30:00Z", "2026-04-04T16:30:00Z", "2026-10-03T15:59:00Z", "2026-10-03T16:00:00Z",
            "2026-03-08T06:59:00Z", "2026-03-08T07:00:00Z", "2026-11-01T05:59:00Z", "2026-11-01T06:00:00Z",
            "2000-01-01T00:00:00Z", "2099-12-31T23:59:59Z",
        ] {
            dates.append(ISO8601DateFormatter().date(from: text)!)
        }
        return dates
    }()

    /// An engine over the seeded city with its search index loaded (checked ready), its finder
    /// (answering from the index), and a finder answering from PostgreSQL alone.
    static func finders(_ client: PostgresClient) async throws -> (
        engine: Engine, viaIndex: VenueFinder, viaDatabase: VenueFinder
    ) {
        var configuration = EngineConfiguration()
        configuration.deviceKey = try DeviceKey(secret: "hearclear-tests-device-key-0123456789abcdef")
        configuration.referenceOffsetDB = reference
        let engine = Engine(client: client, configuration: configuration, logger: engineTestLogger)
        let index = engine.searchIndex
        index.listening()
        await SearchIndexService(index: index, engine: engine).drain()
        #expect(index.status.phase == .ready)
        let viaDatabase = VenueFinder(
            database: engine.reads, loudness: engine.loudness,
            index: SearchIndex(enabled: false, referenceOffsetDB: reference), logger: engineTestLogger)
        return (engine, engine.finder, viaDatabase)
    }

    @Test func randomSearchesAlternativesAndSimilarAnswerAlike() async throws {
        try await withTestDatabase { client, _ in
            var random = SplitMix64(seed: 25)
            let seeded = try await Self.seed(client, random: &random, perTown: 700)
            let (engine, viaIndex, viaDatabase) = try await Self.finders(client)
            #expect(engine.searchIndex.status.venues == seeded.externalIDs.count)
            let bands = Bands.standard
            let labels = bands.bands.map(\.label)
            var pagesCompared = 0
            var hitsCompared = 0

            for round in 0..<400 {
                let town = random.pick(Self.towns)
                let point: (latitude: Double, longitude: Double)
                if round % 5 == 0 {
                    point = random.pick(seeded.specialPoints)
                } else {
                    let cosine = max(0.05, cos(town.latitude * .pi / 180))
                    var lon = town.longitude + (random.unit() - 0.5) * 3 * town.spreadDegrees / cosine
                    if lon > 180 { lon -= 360 }
                    if lon < -180 { lon += 360 }
                    point = (
                        min(90, town.latitude + (random.unit() - 0.5) * 3 * town.spreadDegrees), lon
                    )
                }
                let at: Date? =
                    random.chance(0.2)
                    ? nil
                    : random.chance(0.3)
                        ? random.pick(Self.instants)
                        : Date(timeIntervalSince1970: 946_684_800 + random.unit() * 3_155_760_000)
                var search = VenueFinder.Search(
                    latitude: point.latitude, longitude: point.longitude,
                    radiusMetres: random.pick([30.0, 200, 800, 1500, 3000, 50_000]), at: at,
                    maxLevelDB: random.chance(0.25) ? 55 + random.unit() * 30 : nil,
                    labels: random.chance(0.35) ? labels.filter { _ in random.chance(0.5) } : [],
                    category: random.chance(0.25) ? random.pick(["pub", "cafe", "bar", "none-such"]) : nil,
                    order: random.chance(0.5) ? .distance : .level, limit: random.int(in: 1...25))
                for _ in 0..<3 {
                    let fromIndex = try await viaIndex.search(search, bands: bands)
                    let fromDatabase = try await viaDatabase.search(search, bands: bands)
                    let shownIndex = fromIndex.hits.map(Shown.init)
                    let shownDatabase = fromDatabase.hits.map(Shown.init)
                    #expect(
                        shownIndex == shownDatabase,
                        "round \(round): \(search)\nindex: \(shownIndex)\ndatabase: \(shownDatabase)")
                    #expect(fromIndex.hasMore == fromDatabase.hasMore, "round \(round)")
                    pagesCompared += 1
                    hitsCompared += shownIndex.count
                    guard fromDatabase.hasMore, let last = fromDatabase.hits.last else { break }
                    search.after = last.position
                }
            }
            // Enough of each kind was compared for the comparison to mean something.
            #expect(pagesCompared >= 600)
            #expect(hitsCompared >= 3000)

            var alternativesWithCell = 0
            var similarFound = 0
            for round in 0..<150 {
                let externalID = random.pick(seeded.externalIDs)
                let at =
                    random.chance(0.3)
                    ? random.pick(Self.instants)
                    : Date(
                        timeIntervalSince1970: 946_684_800 + random.unit() * 3_155_760_000)
                let radius = random.pick([300.0, 1500, 5000])
                let a = try #require(
                    try await viaIndex.alternatives(
                        externalID: externalID, at: at, radiusMetres: radius, limit: 10, bands: bands))
                let b = try #require(
                    try await viaDatabase.alternatives(
                        externalID: externalID, at: at, radiusMetres: radius, limit: 10, bands: bands))
                #expect(a.cell == b.cell, "round \(round) \(externalID)")
                #expect(a.hits.map(Shown.init) == b.hits.map(Shown.init), "round \(round) \(externalID)")
                if a.cell != nil { alternativesWithCell += 1 }
                let c = try await viaIndex.similar(externalID: externalID, radiusMetres: radius, limit: 10)
                let d = try await viaDatabase.similar(externalID: externalID, radiusMetres: radius, limit: 10)
                #expect(c == d, "round \(round) \(externalID)")
                similarFound += c?.count ?? 0
            }
            #expect(alternativesWithCell >= 30)
            #expect(similarFound >= 100)
            #expect(
                try await viaIndex.alternatives(
                    externalID: "none-such", at: Date(), radiusMetres: 500, limit: 5, bands: bands) == nil)

            // A week at one hour (the pages' strips), and a venue's sheet (its page, one round trip).
            var daysWithCell = 0
            for round in 0..<100 {
                var hours: [(venueID: Int64, hour: Int)] = []
                for _ in 0..<random.int(in: 1...8) {
                    let externalID = random.pick(seeded.externalIDs)
                    let venue = try #require(try await engine.loudness.venue(externalID: externalID))
                    hours.append((venue.id, random.int(in: 0...23)))
                }
                hours.append((-1, 12))
                let a = try await viaIndex.week(at: hours, bands: bands)
                let b = try await viaDatabase.week(at: hours, bands: bands)
                #expect(a.count == b.count, "round \(round)")
                for (venueID, hour) in hours {
                    let left = try #require(a[venueID])
                    let right = try #require(b[venueID])
                    #expect(left.count == 7 && right.count == 7)
                    for day in 0..<7 {
                        #expect(
                            left[day] == right[day],
                            "round \(round) venue \(venueID) day \(day + 1) \(hour):00")
                        #expect(left[day].map { $0.localHour == LocalHour(weekday: day + 1, hour: hour) } ?? true)
                        if left[day] != nil { daysWithCell += 1 }
                    }
                }
            }
            #expect(daysWithCell >= 100)
            for externalID in seeded.externalIDs.prefix(40) + ["none-such"] {
                let sheet = try await engine.loudness.sheet(externalID: externalID, bands: bands)
                let grid = try await engine.loudness.grid(externalID: externalID, bands: bands)
                #expect(sheet?.grid == grid, "\(externalID)")
                if let venue = grid?.venue {
                    #expect(sheet?.checkins == (try await engine.loudness.checkinCount(venueID: venue.id)))
                }
            }
        }
    }

    /// Search by name (issue 40): random texts of one to three words — each the start of a word of
    /// the vocabulary, in any case, some with their accents dropped or added — alone and near a
    /// point, with categories and hours, page after page, asked of the index and of PostgreSQL.
    @Test func randomNameSearchesAnswerAlike() async throws {
        try await withTestDatabase { client, _ in
            var random = SplitMix64(seed: 40)
            let seeded = try await Self.seed(client, random: &random, perTown: 300)
            let (_, viaIndex, viaDatabase) = try await Self.finders(client)
            let bands = Bands.standard
            var pagesCompared = 0
            var hitsCompared = 0
            var multiWordHits = 0
            let spellings =
                Self.nameWords + [
                    "cafe", "CAFE", "olbar", "strasse", "lodz", "zurich", "smorrebrod", "aero",
                    "istanbul", "abc", "fish", "oneill", "athina", "αθηνα", "σοφοσ", "カフエ", "ｶﾌｪ",
                ]
            for round in 0..<300 {
                let text = (0..<random.int(in: 1...3)).map { _ -> String in
                    let word = random.pick(spellings)
                    let characters = Array(word)
                    let cut = String(characters.prefix(random.int(in: 1...characters.count)))
                    return random.chance(0.3) ? cut.uppercased() : cut
                }.joined(separator: random.pick([" ", "  ", "-", ", "]))
                let town = random.pick(Self.towns)
                let near: (latitude: Double, longitude: Double)? =
                    random.chance(0.5)
                    ? nil : round % 5 == 0 ? random.pick(seeded.specialPoints) : (town.latitude, town.longitude)
                var search = VenueFinder.NameSearch(
                    prefix: text, near: near, radiusMetres: random.pick([200.0, 1500, 5000, 50_000]),
                    at: random.chance(0.3) ? nil : random.pick(Self.instants),
                    category: random.chance(0.2) ? random.pick(["pub", "cafe", "none-such"]) : nil,
                    limit: random.int(in: 1...25))
                for _ in 0..<4 {
                    let fromIndex = try await viaIndex.searchByName(search, bands: bands)
                    let fromDatabase = try await viaDatabase.searchByName(search, bands: bands)
                    let shownIndex = fromIndex.hits.map(Shown.init)
                    let shownDatabase = fromDatabase.hits.map(Shown.init)
                    #expect(
                        shownIndex == shownDatabase,
                        "round \(round): \(text) near \(String(describing: near))\nindex: \(shownIndex)\ndatabase: \(shownDatabase)"
                    )
                    #expect(fromIndex.hasMore == fromDatabase.hasMore, "round \(round)")
                    pagesCompared += 1
                    hitsCompared += shownIndex.count
                    if NameWords.searchWords(of: text).count > 1 { multiWordHits += shownIndex.count }
                    guard fromDatabase.hasMore, let last = fromDatabase.hits.last else { break }
                    search.after = (last.position, last.venue.name)
                }
            }
            #expect(pagesCompared >= 400)
            #expect(hitsCompared >= 2000)
            #expect(multiWordHits >= 100)
        }
    }
}
