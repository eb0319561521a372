import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird

/// `GET /api/v2/venues/{venueId}/loudness` and `GET /api/v2/bands`, from the read cache, with
/// `ETag` / `If-None-Match` and `Cache-Control`.
struct LoudnessController {
    let loudness: LoudnessReads
    let reads: CachedReads

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("venues/{venueId}/loudness", use: grid)
        group.get("bands", use: bands)
    }

    @Sendable func grid(_ request: Request, context: AppRequestContext) async throws -> Response {
        let externalID = try VenuesController.venueID(context)
        return try await reads.respond(.grid(externalID: externalID), to: request) {
            let bands = try await reads.currentBands()
            guard let grid = try await loudness.grid(externalID: externalID, bands: bands) else {
                throw Problem.notFound("no venue with id \(externalID)")
            }
            guard !grid.cells.isEmpty else {
                throw Problem.notFound("venue \(externalID) has no usable check-ins yet")
            }
            return try EncodedAnswer(
                LoudnessBody(
                    venue: grid.venue.externalID, timezone: grid.venue.timezone, changedAt: grid.changedAt,
                    bands: grid.bands, cells: grid.cells))
        }
    }

    @Sendable func bands(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await reads.respond(.bands, to: request) {
            try EncodedAnswer(BandsBody(bands: try await reads.currentBands().bands))
        }
    }
}
