import Foundation
import LoudnessCore

/// A check-in as stored, with its current judgement.
public struct StoredCheckin: Sendable, Equatable {
    public var id: UUID
    public var venueExternalID: String
    public var deviceID: String
    public var deviceModel: String?
    public var source: CheckinSource
    public var startedAt: Date
    public var offsetsSeconds: [Int32]
    public var utcOffsetsMinutes: [Int16]
    public var averageDBFS: [Float]
    public var peakDBFS: [Float]
    /// The accuracy the phone gave for its location, and its distance from the venue: what the
    /// judgement uses. The phone's coordinates are not kept (docs/PRIVACY.md).
    public var locationAccuracyMetres: Double?
    public var distanceMetres: Double?
    public var status: CheckinStatus
    public var reasons: [JudgementReason]
    public var levelDBFS: Float?
    public var validSeconds: Int?
    public var judgedAt: Date?
    public var zoneGuessed: Bool
    public var receipt: CheckinReceipt
    /// When the last sample was taken, as stored (nil: from the samples).
    public var endedAt: Date? = nil
    /// When its per-second samples were removed past the retention (migration 0015); its arrays
    /// are then empty and ``CheckinReceipt/sampleCount`` still says how many there were.
    public var samplesRemovedAt: Date? = nil
    /// LCeq and band levels as sent (see ``CheckinSubmission``); nil when it carries none.
    public var lceqDdB: [Int16]? = nil
    public var bandIndexes: [Int16]? = nil
    public var bandsDdB: [Int16]? = nil
    /// The phone's own classes (see ``CheckinSubmission``); nil when it sent none. After the
    /// retention removed the samples, the windows are gone too and this is nil.
    public var classes: PhoneClasses? = nil

    /// Same content as `submission`: what a retry of the same request would carry. Times are
    /// compared to the millisecond (PostgreSQL keeps microseconds). The location, which is not
    /// kept, is compared by what is: `distanceMetres` is the submission's distance from the
    /// stored check-in's venue, computed as at intake.
    public func matches(_ submission: CheckinSubmission, distanceMetres: Double?) -> Bool {
        venueExternalID == submission.venue.externalID && deviceID == submission.deviceID
            && source == submission.source
            && abs(startedAt.timeIntervalSince(submission.startedAt)) < 0.001
            && offsetsSeconds == submission.offsetsSeconds && utcOffsetsMinutes == submission.utcOffsetsMinutes
            && averageDBFS == submission.averageDBFS
            && peakDBFS == submission.peakDBFS && locationAccuracyMetres == submission.location?.accuracyMetres
            && self.distanceMetres == distanceMetres
            && lceqDdB == submission.lceqDdB && bandIndexes == submission.bandIndexes && bandsDdB == submission.bandsDdB
            && classes == submission.classes
    }

    public init(
        id: UUID, venueExternalID: String, deviceID: String, deviceModel: String? = nil, source: CheckinSource,
        startedAt: Date, offsetsSeconds: [Int32], utcOffsetsMinutes: [Int16], averageDBFS: [Float], peakDBFS: [Float],
        locationAccuracyMetres: Double? = nil, distanceMetres: Double? = nil, status: CheckinStatus,
        reasons: [JudgementReason], levelDBFS: Float? = nil, validSeconds: Int? = nil, judgedAt: Date? = nil,
        zoneGuessed: Bool, receipt: CheckinReceipt, lceqDdB: [Int16]? = nil, bandIndexes: [Int16]? = nil,
        bandsDdB: [Int16]? = nil
    ) {
        self.id = id
        self.venueExternalID = venueExternalID
        self.deviceID = deviceID
        self.deviceModel = deviceModel
        self.source = source
        self.startedAt = startedAt
        self.offsetsSeconds = offsetsSeconds
        self.utcOffsetsMinutes = utcOffsetsMinutes
        self.averageDBFS = averageDBFS
        self.peakDBFS = peakDBFS
        self.locationAccuracyMetres = locationAccuracyMetres
        self.distanceMetres = distanceMetres
        self.status = status
        self.reasons = reasons
        self.levelDBFS = levelDBFS
        self.validSeconds = validSeconds
        self.judgedAt = judgedAt
        self.zoneGuessed = zoneGuessed
        self.receipt = receipt
        self.lceqDdB = lceqDdB
        self.bandIndexes = bandIndexes
        self.bandsDdB = bandsDdB
    }
}
