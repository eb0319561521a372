/// An estimate for a cell without check-ins of its own (docs/ARCHITECTURE.md, "Estimates for
/// empty cells"): a prediction, never a measurement, with a range honestly wider than a measured
/// cell's.
public struct PatternEstimate: Sendable, Equatable {
    /// What the estimate rests on.
    public enum Basis: String, Sendable, Equatable {
        /// The venue's own weekday + hour profile (``VenueProfile``).
        case venuePattern = "venue_pattern"
        /// Venues of the same category nearby at that hour.
        case categoryNearby = "category_nearby"
        /// The cell as measured before the venue's level changed, moved by the shift its
        /// check-ins since show at that hour: no check-in of the cell since the change
        /// (``VenueChangeDetector``).
        case afterChange = "after_change"
    }

    /// The predicted level, dB (model-corrected dBFS, like the cells).
    public let levelDB: Double
    /// An approximate 95 % interval for the cell's true level, dB.
    public let rangeDB: ClosedRange<Double>
    /// The prediction's standard error, dB: `rangeDB` is `levelDB ± 1.96 · scaleDB`.
    public let scaleDB: Double
    public let basis: Basis

    /// `init(levelDB:scaleDB:basis:)`: the estimate with its 95 % range.
    public init(levelDB: Double, scaleDB: Double, basis: Basis) {
        self.levelDB = levelDB
        self.scaleDB = scaleDB
        self.rangeDB = (levelDB - 1.96 * scaleDB)...(levelDB + 1.96 * scaleDB)
        self.basis = basis
    }

    /// Estimates are always of low confidence.
    public var confidence: Confidence { .low }
}
