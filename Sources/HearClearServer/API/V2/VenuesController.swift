import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird

/// `PUT` and `GET /api/v2/venues/{venueId}` (the latter from the read cache).
struct VenuesController {
    let venues: VenueDirectory
    let loudness: LoudnessReads
    let reads: CachedReads

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.put("venues/{venueId}", use: put)
        group.get("venues/{venueId}", use: get)
    }

    @Sendable func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try Self.venueID(context)
        let body = try await JSONBody.decode(VenueRequest.self, from: request)
        var rules = FieldRules()
        let details = rules.venueDetails(
            name: body.name, latitude: body.latitude, longitude: body.longitude, timezone: body.timezone,
            address: body.address, category: body.category, at: "", required: true
        )
        guard let details, rules.errors.isEmpty else { throw Problem.validation(rules.errors) }
        let (venue, created) = try await venues.save(externalID: externalID, details: details)
        let count = try await venues.checkinCount(venueID: venue.id)
        var headers: HTTPFields = [.location: "/api/v2/venues/\(externalID)"]
        if !created { headers[.location] = nil }
        return try JSONResponse.make(
            VenueBody(venue, checkins: count), status: created ? .created : .ok, headers: headers)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try Self.venueID(context)
        return try await reads.respond(.venue(externalID: externalID), to: request) {
            let bands = try await reads.currentBands()
            guard let summary = try await venues.summary(externalID: externalID, bands: bands) else {
                throw Problem.notFound("no venue with id \(externalID)")
            }
            return try EncodedAnswer(
                VenueBody(
                    summary.venue, checkins: summary.checkins, level: summary.levelDB, label: summary.label,
                    changedAt: KeepsNull(wrappedValue: summary.changedAt)))
        }
    }

    /// The `{venueId}` path parameter, 400 when it breaks the id rule.
    static func venueID(_ context: AppRequestContext) throws -> String {
        let id = context.parameters.get("venueId") ?? ""
        guard FieldRules.isValidVenueID(id) else {
            throw Problem.malformed("the venue id in the path \(FieldRules.venueIDRule)")
        }
        return id
    }
}

enum JSONResponse {
    static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws
        -> Response
    {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder.api.encode(value)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The same answer written by ``JSONWriter`` (the same bytes, without `JSONEncoder`'s cost).
    static func written(_ value: some JSONWritable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:])
        -> Response
    {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        var writer = JSONWriter()
        value.write(to: &writer)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }
}
