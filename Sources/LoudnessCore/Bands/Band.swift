/// One loudness band: a label for levels under `belowDB` (and at or above the previous band's).
/// Encodes as `{ "label": "quiet", "below": 70 }`, the last band without `below`.
public struct Band: Sendable, Hashable, Codable {
    /// The word shown to users, e.g. "quiet".
    public let label: String
    /// Exclusive upper bound in calibrated dB; `nil` for the last, unbounded band.
    public let belowDB: Double?

    /// `init(label:belowDB:)`: memberwise; validate bands together with ``Bands/init(_:)``.
    public init(label: String, belowDB: Double?) {
        self.label = label
        self.belowDB = belowDB
    }

    private enum CodingKeys: String, CodingKey {
        case label
        case belowDB = "below"
    }
}
