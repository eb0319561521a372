/// Why a list of bands was refused by ``Bands/init(_:)``; `description` is a sentence for admins.
public enum BandsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bands at all.
    case empty
    /// The band at `index` has an empty or blank label.
    case emptyLabel(index: Int)
    /// `label` is used by more than one band (compared ignoring case and surrounding spaces).
    case duplicateLabel(String)
    /// The band at `index` has a NaN or infinite bound.
    case nonFiniteBound(index: Int)
    /// The bound at `index` is not greater than the one before it.
    case boundsNotIncreasing(index: Int)
    /// The band at `index` has no bound but is not the last band.
    case unboundedBandNotLast(index: Int)
    /// The last band has a bound, so levels above it would have no label.
    case lastBandBounded

    public var description: String {
        switch self {
        case .empty: "at least one band is needed"
        case .emptyLabel(let index): "band \(index + 1) has an empty label"
        case .duplicateLabel(let label): "the label \"\(label)\" is used more than once"
        case .nonFiniteBound(let index): "band \(index + 1) has a bound that is not a finite number"
        case .boundsNotIncreasing(let index):
            "band \(index + 1) must have a higher bound than band \(index)"
        case .unboundedBandNotLast(let index):
            "band \(index + 1) has no upper bound, but only the last band may be unbounded"
        case .lastBandBounded: "the last band must have no upper bound"
        }
    }
}
