/// How far a cell estimate can be trusted, as a word for the API.
public enum Confidence: String, Sendable, Codable, CaseIterable, Comparable {
    case low
    case medium
    case high

    /// `rate(checkins:devices:halfWidthDB:)`: `high` with ≥ 5 check-ins from ≥ 3 devices and a
    /// range half-width ≤ 2 dB; `medium` with ≥ 3 check-ins from ≥ 2 devices and a half-width
    /// ≤ 4 dB; `low` otherwise. Counts are of check-ins kept in the estimate (not outliers).
    public static func rate(checkins: Int, devices: Int, halfWidthDB: Double) -> Confidence {
        if checkins >= 5, devices >= 3, halfWidthDB <= 2 { return .high }
        if checkins >= 3, devices >= 2, halfWidthDB <= 4 { return .medium }
        return .low
    }

    private var rank: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .high: 2
        }
    }

    public static func < (lhs: Confidence, rhs: Confidence) -> Bool { lhs.rank < rhs.rank }
}
