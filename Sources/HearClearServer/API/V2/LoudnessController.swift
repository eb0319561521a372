import Foundation
import HearClearEngine
import HearClearStore
import Hummingbird

/// `GET /api/v2/venues/{venueId}/loudness` (with `ETag` / `If-None-Match`) and `GET /api/v2/bands`.
struct LoudnessController {
    let loudness: LoudnessReads

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("venues/{venueId}/loudness", use: grid)
        group.get("bands", use: bands)
    }

    @Sendable func grid(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try VenuesController.venueID(context)
        guard let grid = try await loudness.grid(externalID: externalID) else {
            throw Problem.notFound("no venue with id \(externalID)")
        }
        guard !grid.cells.isEmpty else {
            throw Problem.notFound("venue \(externalID) has no usable check-ins yet")
        }
        let body = LoudnessBody(
            venue: grid.venue.externalID, timezone: grid.venue.timezone, bands: grid.bands, cells: grid.cells)
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
        try JSONResponse.make(BandsBody(bands: try await loudness.currentBands().bands))
    }
}
