import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// A check-in whose device id is keyed (``CheckinIntake/keyed(_:)``), as it is rate-limited and stored.
public struct KeyedCheckin: Sendable {
    /// The submission, its device id keyed.
    let submission: CheckinSubmission
    /// The keyed device id: what the rate limits count.
    public var device: String { submission.deviceID }
}

/// The one way in for a check-in, from v1, v2 and the meter alike: stores it with its first
/// judgement (``IntakeRule``: `pending`, or `excluded` when the phone was too far from the venue),
/// creating its venue and device when needed, and queues the venue for the aggregation worker, in
/// one transaction (docs/ARCHITECTURE.md, "The path of a check-in").
public struct CheckinIntake: Sendable {
    let checkins: CheckinRepository
    public let rule: IntakeRule
    /// The key device ids are stored under; nil only where tests store fixtures' ids as they are.
    let deviceKey: DeviceKey?

    /// Over `checkins` (the engine's, or a test's own): within the package only, as the Store is.
    package init(checkins: CheckinRepository, rule: IntakeRule, deviceKey: DeviceKey?) {
        self.checkins = checkins
        self.rule = rule
        self.deviceKey = deviceKey
    }

    /// The check-in with its device id keyed, once: the form it is rate-limited and stored in.
    public func keyed(_ submission: CheckinSubmission) -> KeyedCheckin {
        var submission = submission
        if let deviceKey { submission.deviceID = deviceKey.keyed(submission.deviceID) }
        return KeyedCheckin(submission: submission)
    }

    /// Keys the check-in's device id, then stores it as a keyed check-in.
    public func submit(_ submission: CheckinSubmission) async throws -> IngestOutcome {
        try await submit(keyed(submission))
    }

    /// Stores the check-in, or finds it already stored (a retry) or conflicting (same id, other
    /// content). Throws ``IngestError/unknownVenue(externalID:)`` when the venue does not exist and
    /// the submission cannot create it.
    public func submit(_ checkin: KeyedCheckin) async throws -> IngestOutcome {
        let submission = checkin.submission
        let rule = self.rule
        let phone = submission.location.map { (latitude: $0.latitude, longitude: $0.longitude) }
        return try await checkins.ingest(submission) { venue in
            rule.verdict(phone: phone, venue: (venue.latitude, venue.longitude))
        }
    }
}
