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
        if parameters.query["q"] != nil { return try await searchByName(parameters, bands: bands) }
        let near = parameters.near()
        let radius = parameters.radius()
        var at = parameters.at()
        let maxLevel = parameters.maxLevel()
        let labels = parameters.labels(in: bands)
        let category = parameters.category()
        let order = parameters.sort()
        let limit = parameters.limit()
        let fingerprint = parameters.fingerprint()
        let cursor = parameters.cursor(SearchCursor.self, fingerprint: fingerprint)
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
            near: SearchBody.Point(latitude: near.latitude, longitude: near.longitude), radius: radius, at: at,
            sort: order.rawValue, results: page.hits.map(SearchBody.Result.init), next: next)
        return JSONResponse.written(body, headers: [.cacheControl: reads.cacheControl])
    }

    /// `GET /api/v2/venues?q=…`: by name, alone or within `radius` of `near`.
    func searchByName(_ parameters: SearchParameters, bands: Bands) async throws -> Response {
        var parameters = parameters
        let q = parameters.q()
        let near = parameters.optionalNear()
        let radius = parameters.radius()
        var at = parameters.at()
        let category = parameters.category()
        parameters.refuseWithName()
        _ = parameters.sort()
        let limit = parameters.limit()
        let fingerprint = parameters.fingerprint()
        let cursor = parameters.cursor(NameCursor.self, fingerprint: fingerprint)
        try parameters.check()
        guard let q else { throw Problem.validation(parameters.errors) }
        if let cursor, parameters.query["at"] != nil { at = cursor.at }
        let page = try await finder.searchByName(
            .init(
                prefix: q, near: near, radiusMetres: radius, at: at, category: category, limit: limit,
                after: cursor.map {
                    (
                        VenueSearchQuery.Position(levelDB: nil, distanceMetres: $0.distanceMetres, venueID: $0.venueID),
                        $0.name
                    )
                }),
            bands: bands)
        let next =
            page.hasMore
            ? page.hits.last.map { last in
                parameters.next(
                    path: "/api/v2/venues",
                    cursor: NameCursor(
                        fingerprint: fingerprint, at: at, distanceMetres: last.distanceMetres, name: last.venue.name,
                        venueID: last.venue.id))
            } : nil
        let body = SearchBody(
            q: q, near: near.map { .init(latitude: $0.latitude, longitude: $0.longitude) },
            radius: near == nil ? nil : radius, at: at, sort: "distance",
            results: page.hits.map(SearchBody.Result.init), next: next)
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
