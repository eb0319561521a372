import Foundation
import HearClearStore
import Logging
import PostgresNIO

/// The one ingest path of v1, v2 and the meter: validated submissions go to the repository.
struct CheckinIngest: Sendable {
    let checkins: CheckinRepository
    let maxDistanceMetres: Double

    func submit(_ submission: CheckinSubmission) async throws -> IngestOutcome {
        do {
            return try await checkins.ingest(submission, maxDistanceMetres: maxDistanceMetres)
        } catch IngestError.unknownVenue(let externalID) {
            let detail = "is required to create venue \(externalID), which is not known yet"
            throw Problem.validation([
                .init("/venue/name", detail), .init("/venue/latitude", detail), .init("/venue/longitude", detail),
            ])
        }
    }
}
