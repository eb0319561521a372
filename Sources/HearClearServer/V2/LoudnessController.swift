import Foundation
import HearClearStore
import Hummingbird

/// `GET /api/v2/venues/{venueId}/loudness` (with `ETag` / `If-None-Match`) and `GET /api/v2/bands`.
struct LoudnessController {
    let reader: LoudnessReader

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("venues/{venueId}/loudness", use: grid)
        group.get("bands", use: bands)
    }

    @Sendable func grid(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try VenuesController.venueID(context)
        guard let venue = try await reader.venues.find(externalID: externalID) else {
            throw Problem.notFound("no venue with id \(externalID)")
        }
        let bands = try await reader.currentBands()
        let cells = try await reader.cells(venueID: venue.id, bands: bands)
        guard !cells.isEmpty else {
            throw Problem.notFound("venue \(externalID) has no usable check-ins yet")
        }
        let body = LoudnessBody(venue: venue.externalID, timezone: venue.timezone, bands: bands, cells: cells)
        let data = try JSONEncoder.api.encode(body)
        let tag = EntityTag.strong(for: data)
        if let presented = EntityTag.match(tag, ifNoneMatch: request.headers[.ifNoneMatch]) {
            let echoed = presented == "*" ? tag : presented
            return Response(status: .notModified, headers: [.eTag: echoed, .cacheControl: "no-cache"])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .eTag: tag, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    @Sendable func bands(_ request: Request, context: AppRequestContext) async throws -> Response {
        try JSONResponse.make(BandsBody(bands: try await reader.currentBands().bands))
    }
}
