/// How ``VenueJudge`` judged one check-in.
public struct CheckinJudgement: Sendable, Equatable {
    /// The check-in's id.
    public let checkinID: String
    /// `included`, `outlier` or `excluded`.
    public let status: CheckinStatus
    /// Machine-readable reasons (empty when included): the check-in's exclusion reasons, then the
    /// cleaning verdict (``CheckinExclusion``), ``JudgementReason/tooFewSecondsPerHour`` or
    /// ``JudgementReason/cellOutlier``.
    public let reasons: [JudgementReason]
    /// Energetic mean of the kept seconds, raw dBFS; `nil` when no second was kept.
    public let levelDBFS: Double?
    /// Seconds kept by cleaning.
    public let validSeconds: Int
    /// One entry per venue-local hour with at least one kept second, in time order.
    public let hours: [HourJudgement]
    /// The cleaning it was judged from, to be stored for the next judgement.
    public let cleaning: CleaningSummary?

    /// `init(...)`: memberwise.
    public init(
        checkinID: String, status: CheckinStatus, reasons: [JudgementReason], levelDBFS: Double?, validSeconds: Int,
        hours: [HourJudgement], cleaning: CleaningSummary? = nil
    ) {
        self.checkinID = checkinID
        self.status = status
        self.reasons = reasons
        self.levelDBFS = levelDBFS
        self.validSeconds = validSeconds
        self.hours = hours
        self.cleaning = cleaning
    }
}
