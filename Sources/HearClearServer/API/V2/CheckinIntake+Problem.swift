import HearClearEngine
import HearClearHTTP
import HearClearModel

extension CheckinIntake {
    /// ``CheckinIntake/submit(_:)``, with a check-in for an unknown venue that cannot create it
    /// answered as the 422 problem naming the fields it lacks.
    func accept(_ submission: CheckinSubmission) async throws -> IngestOutcome {
        do {
            return try await submit(submission)
        } catch IngestError.unknownVenue(let externalID) {
            let detail = "is required to create venue \(externalID), which is not known yet"
            throw Problem.validation([
                .init("/venue/name", detail), .init("/venue/latitude", detail), .init("/venue/longitude", detail),
            ])
        }
    }
}
