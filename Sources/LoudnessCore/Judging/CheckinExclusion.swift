/// Why a whole check-in was excluded by cleaning. Raw values are the machine-readable reasons.
public enum CheckinExclusion: String, Sendable, Codable, CaseIterable {
    /// Fewer than 15 valid (kept) seconds.
    case tooFewValidSeconds = "too_few_valid_seconds"
    /// At least 15 valid seconds, but fewer than 50 % of all seconds were valid.
    case tooLittleValidShare = "too_little_valid_share"
    /// Excluded, and more than half of the removed seconds were removed as `stuck`.
    case stuckMeter = "stuck_meter"
    /// Excluded, and more than half of the removed seconds were removed as `dropout`.
    case dropout
}
