/// A machine-readable reason for a check-in's judgement (letters, digits and `_`), stored and
/// reported as its raw value. The set is open: cleaning's verdicts (``CheckinExclusion``) are
/// reasons too, and a reason stored by an earlier version of the engine is read back as it is.
public struct JudgementReason: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// Cleaning's verdict as a reason.
    public init(_ exclusion: CheckinExclusion) {
        rawValue = exclusion.rawValue
    }

    public var description: String { rawValue }

    /// An outlier in a cell (|modified z| > 3.5 against the other check-ins of that cell).
    public static let cellOutlier: JudgementReason = "cell_outlier"
    /// Accepted by cleaning, but no venue-local hour got the 10 valid seconds needed to count.
    public static let tooFewSecondsPerHour: JudgementReason = "too_few_seconds_per_hour"
    /// An admin excluded the device.
    public static let deviceExcluded: JudgementReason = "device_excluded"
    /// The phone was farther from the venue than allowed (decided at intake).
    public static let tooFarFromVenue: JudgementReason = "too_far_from_venue"
    /// The same device had a check-in at another venue whose time overlaps this one's: it
    /// cannot have been at both (decided at intake; the earlier check-in stands).
    public static let elsewhereMeanwhile: JudgementReason = "elsewhere_meanwhile"
    /// Its stored samples cannot be read as a series (arrays that do not line up).
    public static let invalidSamples: JudgementReason = "invalid_samples"
    /// An admin forced the check-in out of every cell (``VenueCheckin/exclusionReasons``).
    public static let adminExcluded: JudgementReason = "admin_excluded"
    /// An admin forced the check-in in (``VenueCheckin/forcedInclusion``); it stays with status
    /// `included` so clients can tell.
    public static let adminIncluded: JudgementReason = "admin_included"
}
