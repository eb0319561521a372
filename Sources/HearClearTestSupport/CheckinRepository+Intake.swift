import HearClearEngine
import HearClearModel
import HearClearStore
import LoudnessCore

extension CheckinRepository {
    /// Stores the check-in through the engine's intake with the rule `serve` uses at
    /// `maxDistanceMetres`, below the HTTP validator.
    public func ingest(_ submission: CheckinSubmission, maxDistanceMetres: Double) async throws -> IngestOutcome {
        try await CheckinIntake(
            checkins: self, rule: IntakeRule(maxDistanceMetres: maxDistanceMetres), deviceKey: nil
        )
        .submit(submission)
    }
}
