/// The judgement of a whole check-in, as the API reports it (`status`).
public enum CheckinStatus: String, Sendable, Codable, CaseIterable {
    /// Not judged yet: waiting for the aggregation worker.
    case pending
    /// In the estimate of every cell it has enough seconds in.
    case included
    /// Rejected by the cell estimator (|modified z| > 3.5) in at least one cell, and then left out
    /// of every cell: reason ``JudgementReason/cellOutlier``.
    case outlier
    /// Not usable at all; the reasons say why.
    case excluded
}

/// Machine-readable reasons added by ``VenueJudge`` (cleaning adds ``CheckinExclusion`` raw values).
public enum JudgementReason {
    /// An outlier in a cell (|modified z| > 3.5 against the other check-ins of that cell).
    public static let cellOutlier = "cell_outlier"
    /// Accepted by cleaning, but no venue-local hour got the 10 valid seconds needed to count.
    public static let tooFewSecondsPerHour = "too_few_seconds_per_hour"
    /// An admin excluded the device.
    public static let deviceExcluded = "device_excluded"
    /// The phone was farther from the venue than allowed (decided at ingest).
    public static let tooFarFromVenue = "too_far_from_venue"
    /// Its stored samples cannot be read as a series (arrays that do not line up).
    public static let invalidSamples = "invalid_samples"
}
