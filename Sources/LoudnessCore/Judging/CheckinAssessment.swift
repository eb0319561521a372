/// How one check-in stood against the other check-ins of its cell.
public struct CheckinAssessment: Sendable, Equatable {
    /// The check-in's id, from ``CellCheckin/checkinID``.
    public let checkinID: String
    /// Iglewicz–Hoaglin modified z-score `0.6745·(x − median)/MAD` over the cell's check-ins, or,
    /// in a venue's context, `(x − centre)/σ` with the venue's pooled σ (``CellEstimator``).
    public let modifiedZ: Double
    /// True when |modified z| > 3.5 and the cell has at least 3 check-ins or a profile prediction:
    /// status `outlier`, left out of the cell estimate.
    public let isOutlier: Bool

    /// `init(checkinID:modifiedZ:isOutlier:)`: memberwise.
    public init(checkinID: String, modifiedZ: Double, isOutlier: Bool) {
        self.checkinID = checkinID
        self.modifiedZ = modifiedZ
        self.isOutlier = isOutlier
    }
}
