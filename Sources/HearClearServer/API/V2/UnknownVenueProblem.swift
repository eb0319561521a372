import HearClearEngine
import HearClearHTTP
import HearClearModel

/// A check-in for an unknown venue that cannot create it, answered (v1 and v2 alike) as the 422
/// problem naming the fields it lacks.
enum UnknownVenueProblem {
    /// `store`'s outcome, with ``IngestError/unknownVenue(externalID:)`` thrown as that problem.
    static func answering(_ store: () async throws -> IngestOutcome) async throws -> IngestOutcome {
        do {
            return try await store()
        } catch IngestError.unknownVenue(let externalID) {
            let detail = "is required to create venue \(externalID), which is not known yet"
            throw Problem.validation([
                .init("/venue/name", detail), .init("/venue/latitude", detail), .init("/venue/longitude", detail),
            ])
        }
    }
}
