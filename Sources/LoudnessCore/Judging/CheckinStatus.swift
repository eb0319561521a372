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
