/// One check-in's piece of one venue-local hour, and what became of it.
public struct HourJudgement: Sendable, Equatable {
    /// Leq, L10/L50/L90, max peak and valid seconds of the piece, raw dBFS (no model offset).
    public let statistics: HourStatistics
    /// True when the piece is in its cell's estimate.
    public let counted: Bool
    /// True when the cell estimator rejected this piece (|modified z| > 3.5).
    public let isOutlier: Bool
    /// The piece's modified z-score in its cell, when it took part in estimation.
    public let modifiedZ: Double?
    /// Piece level (with model offset) minus the cell estimated from the *other* devices' counted
    /// pieces; `nil` when no other device counted in that cell or the piece is not comparable.
    public let residualDB: Double?
    /// Number of other devices behind ``residualDB``.
    public let otherDeviceCount: Int

    /// `init(...)`: memberwise.
    public init(
        statistics: HourStatistics, counted: Bool, isOutlier: Bool, modifiedZ: Double?, residualDB: Double?,
        otherDeviceCount: Int
    ) {
        self.statistics = statistics
        self.counted = counted
        self.isOutlier = isOutlier
        self.modifiedZ = modifiedZ
        self.residualDB = residualDB
        self.otherDeviceCount = otherDeviceCount
    }
}
