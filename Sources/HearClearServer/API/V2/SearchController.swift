import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import LoudnessCore

/// `GET /api/v2/venues` (search), `GET /api/v2/venues/{venueId}/alternatives` and
/// `GET /api/v2/venues/{venueId}/similar` (docs/ARCHITECTURE.md, "Search").
struct SearchController {
    let finder: VenueFinder
    let loudness: LoudnessReads
    let reads: CachedReads

    /// Radius of `similar` when none is given, metres.
    static let similarRadiusMetres = 5_000.0
    /// Results of `alternatives` and `similar` when no limit is given.
    static let shortListLimit = 10

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("venues", use: search)
        group.get("venues/{venueId}/alternatives", use: alternatives)
        group.get("venues/{venueId}/similar", use: similar)
    }

    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bands = try await reads.currentBands()
        var parameters = SearchParameters(request)
        let near = parameters.near()
        let radius = parameters.radius()
        var at = parameters.at()
        let maxLevel = parameters.maxLevel()
        let labels = parameters.labels(in: bands)
        let category = parameters.category()
        let order = parameters.sort()
        let limit = parameters.limit()
        let fingerprint = parameters.fingerprint()
        let cursor = parameters.cursor(fingerprint: fingerprint)
        try parameters.check()
        guard let near else { throw Problem.validation(parameters.errors) }
        if let cursor, parameters.query["at"] != nil { at = cursor.at }

        let page = try await finder.search(
            .init(
                latitude: near.latitude, longitude: near.longitude, radiusMetres: radius, at: at, maxLevelDB: maxLevel,
                labels: labels, category: category, order: order, limit: limit, after: cursor?.position),
            bands: bands)
        let next =
            page.hasMore
            ? page.hits.last.map { last in
                parameters.next(
                    path: "/api/v2/venues",
                    cursor: SearchCursor(fingerprint: fingerprint, at: at, position: last.position))
            } : nil
        let body = SearchBody(
            near: .init(latitude: near.latitude, longitude: near.longitude), radius: radius, at: at,
            sort: order.rawValue, results: page.hits.map(SearchBody.Result.init), next: next)
        return JSONResponse.written(body, headers: [.cacheControl: reads.cacheControl])
    }

    @Sendable func alternatives(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try VenuesController.venueID(context)
        let bands = try await reads.currentBands()
        var parameters = SearchParameters(request)
        let at = parameters.at() ?? parameters.now
        let radius = parameters.radius()
        let limit = parameters.limit(default: Self.shortListLimit)
        try parameters.check()
        guard
            let found = try await finder.alternatives(
                externalID: externalID, at: at, radiusMetres: radius, limit: limit, bands: bands)
        else { throw Problem.notFound("no venue with id \(externalID)") }
        let body = AlternativesBody(
            venue: externalID, at: at, radius: radius, loudness: found.cell.map(LoudnessObject.init),
            alternatives: found.hits.map { hit in
                AlternativesBody.Alternative(
                    venue: VenueBody(hit), distance: SearchBody.metres(hit.distanceMetres),
                    quieterBy: LoudnessReads.rounded((found.cell?.levelDB ?? 0) - (hit.cell?.levelDB ?? 0)),
                    loudness: hit.cell.map(LoudnessObject.init))
            })
        return try JSONResponse.make(body, headers: [.cacheControl: reads.cacheControl])
    }

    @Sendable func similar(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try VenuesController.venueID(context)
        let bands = try await reads.currentBands()
        var parameters = SearchParameters(request)
        let radius = parameters.radius(default: Self.similarRadiusMetres)
        let limit = parameters.limit(default: Self.shortListLimit)
        try parameters.check()
        guard let found = try await finder.similar(externalID: externalID, radiusMetres: radius, limit: limit) else {
            throw Problem.notFound("no venue with id \(externalID)")
        }
        let body = SimilarBody(
            venue: externalID, radius: radius, minimumSharedCells: VenueFinder.minimumSharedCells,
            similar: found.map { similar in
                let level = similar.overallDB
                return SimilarBody.Entry(
                    venue: VenueBody(
                        similar.venue, checkins: similar.checkins, level: level,
                        label: level.map { LoudnessReads.label(ofCalibratedDB: $0, bands: bands) }),
                    distance: SearchBody.metres(similar.distanceMetres),
                    difference: LoudnessReads.rounded(similar.differenceDB), sharedCells: similar.sharedCells)
            })
        return try JSONResponse.make(body, headers: [.cacheControl: reads.cacheControl])
    }
}

/// The loudness of the cell a search used: `{day, hour, level, label, range, confidence, estimated}`,
/// and an estimate's `basis`.
struct LoudnessObject: Encodable, Equatable {
    var day: String
    var hour: Int
    var level: Double
    var label: String
    var range: [Double]
    var confidence: String
    var estimated: Bool
    /// What an estimate rests on (`venue_pattern`, `category_nearby`); absent for a measured cell.
    var basis: String?

    init(_ cell: LoudnessReads.Cell) {
        day = cell.localHour.weekdayName
        hour = cell.localHour.hour
        level = cell.levelDB
        label = cell.label
        range = [cell.rangeDB.lowerBound, cell.rangeDB.upperBound]
        confidence = cell.confidence
        estimated = cell.estimated
        basis = cell.basis?.rawValue
    }
}

extension VenueBody {
    /// A found venue's document, with its overall level and label.
    init(_ hit: VenueFinder.Hit) {
        self.init(hit.venue, checkins: hit.checkins, level: hit.overall?.levelDB, label: hit.overall?.label)
    }
}

/// The answer of `GET /api/v2/venues`.
struct SearchBody: Encodable {
    struct Point: Encodable {
        var latitude: Double
        var longitude: Double
    }

    struct Result: Encodable {
        var venue: VenueBody
        var distance: Double
        /// The cell used at `at`; null without `at` or without a cell there.
        var loudness: LoudnessObject?

        init(_ hit: VenueFinder.Hit) {
            venue = VenueBody(hit)
            distance = SearchBody.metres(hit.distanceMetres)
            loudness = hit.cell.map(LoudnessObject.init)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(venue, forKey: .venue)
            try container.encode(distance, forKey: .distance)
            try container.encode(loudness, forKey: .loudness)
        }

        enum CodingKeys: String, CodingKey { case venue, distance, loudness }
    }

    var near: Point
    var radius: Double
    var at: Date?
    var sort: String
    var unit = "dB"
    var results: [Result]
    /// The next page, or null on the last.
    var next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(near, forKey: .near)
        try container.encode(radius, forKey: .radius)
        try container.encode(at, forKey: .at)
        try container.encode(sort, forKey: .sort)
        try container.encode(unit, forKey: .unit)
        try container.encode(results, forKey: .results)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case near, radius, at, sort, unit, results, next }

    /// Metres to 0.1 m.
    static func metres(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

/// The answer of `GET /api/v2/venues/{venueId}/alternatives`.
struct AlternativesBody: Encodable {
    struct Alternative: Encodable {
        var venue: VenueBody
        var distance: Double
        /// How much quieter than the venue at that hour, dB.
        var quieterBy: Double
        var loudness: LoudnessObject?
    }

    var venue: String
    var at: Date
    var radius: Double
    var unit = "dB"
    /// The venue's own cell at `at`; null when it has none there (then nothing is compared).
    var loudness: LoudnessObject?
    var alternatives: [Alternative]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(venue, forKey: .venue)
        try container.encode(at, forKey: .at)
        try container.encode(radius, forKey: .radius)
        try container.encode(unit, forKey: .unit)
        try container.encode(loudness, forKey: .loudness)
        try container.encode(alternatives, forKey: .alternatives)
    }

    enum CodingKeys: String, CodingKey { case venue, at, radius, unit, loudness, alternatives }
}

/// The answer of `GET /api/v2/venues/{venueId}/similar`.
struct SimilarBody: Encodable {
    struct Entry: Encodable {
        var venue: VenueBody
        var distance: Double
        /// Root-mean-square difference over the cells both venues measured, dB.
        var difference: Double
        var sharedCells: Int
    }

    var venue: String
    var radius: Double
    var unit = "dB"
    var minimumSharedCells: Int
    var similar: [Entry]
}

extension SearchBody: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("at")
            w.date(at)
            w.key("near")
            near.write(to: &w)
            w.key("next")
            w.string(next)
            w.key("radius")
            w.number(radius)
            w.key("results")
            w.array(results) { w, result in result.write(to: &w) }
            w.key("sort")
            w.string(sort)
            w.key("unit")
            w.string(unit)
        }
    }
}

extension SearchBody.Point: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("latitude")
            w.number(latitude)
            w.key("longitude")
            w.number(longitude)
        }
    }
}

extension SearchBody.Result: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("distance")
            w.number(distance)
            w.key("loudness")
            if let loudness { loudness.write(to: &w) } else { w.null() }
            w.key("venue")
            venue.write(to: &w)
        }
    }
}

extension LoudnessObject: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            if let basis {
                w.key("basis")
                w.string(basis)
            }
            w.key("confidence")
            w.string(confidence)
            w.key("day")
            w.string(day)
            w.key("estimated")
            w.bool(estimated)
            w.key("hour")
            w.int(hour)
            w.key("label")
            w.string(label)
            w.key("level")
            w.number(level)
            w.key("range")
            w.array(range) { w, bound in w.number(bound) }
        }
    }
}
