/// Why one second of a check-in was not kept. Raw values are the machine-readable reason strings.
///
/// Each second carries at most one reason, the first that applied in the cleaning order
/// `invalid` → `stuck` → `spike` → `after_spike` → `dropout`.
public enum SecondRejection: String, Sendable, Codable, CaseIterable {
    /// Average at or below −120 dBFS, above +6 dBFS, non-finite, or peak more than 0.5 dB under
    /// the average.
    case invalid
    /// Part of a run of ≥ 5 seconds whose averages span less than 0.01 dB (a stuck meter).
    case stuck
    /// Flagged by the Hampel filter (window 7 s, 3 × 1.4826·MAD, 1 dB floor).
    case spike
    /// Within 2 seconds after a spike: the meter is still decaying from it.
    case afterSpike = "after_spike"
    /// Inside a stretch where the 15-second running median sits ≥ 10 dB under the session median
    /// for ≥ 10 seconds (phone in a pocket or bag).
    case dropout
}
