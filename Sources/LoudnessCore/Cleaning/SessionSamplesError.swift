/// Why per-second sample arrays (or arrays meant to line up with them) were refused.
public enum SessionSamplesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An array does not have one entry per sample: `field` has `actual` entries, not `expected`.
    case lengthMismatch(field: String, expected: Int, actual: Int)
    /// The offset at `index` is NaN or infinite.
    case nonFiniteOffset(index: Int)
    /// The offset at `index` is not greater than the one before it (offsets must strictly increase).
    case offsetsNotIncreasing(index: Int)

    public var description: String {
        switch self {
        case .lengthMismatch(let field, let expected, let actual):
            "\(field) has \(actual) entries, expected \(expected) (one per sample)"
        case .nonFiniteOffset(let index):
            "offset at index \(index) is not a finite number"
        case .offsetsNotIncreasing(let index):
            "offset at index \(index) is not greater than the previous one"
        }
    }
}
