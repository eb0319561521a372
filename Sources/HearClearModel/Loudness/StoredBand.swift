/// A label band in calibrated dB: levels under `belowDB` (and at or above the previous
/// band's bound) get `label`; the last band has no bound.
public struct StoredBand: Sendable, Equatable {
    public var label: String
    public var belowDB: Double?

    public init(label: String, belowDB: Double?) {
        self.label = label
        self.belowDB = belowDB
    }
}
