/// A phone's offset from a recording made beside a sound level meter (docs/ARCHITECTURE.md,
/// "Reference calibration beside a meter"): the median over the seconds both measured of
/// `meter LAeq − phone level`, so a few seconds where one of them caught a bump do not move it.
public enum MeterComparison {
    /// Fewest seconds both must have measured.
    public static let minimumSeconds = 30
    /// Largest robust spread (1.4826·MAD) of the per-second differences, dB: more means the two
    /// did not hear the same sound (the phone in a pocket, the meter across the room).
    public static let maximumSpreadDB = 3.0

    public struct Result: Sendable, Equatable {
        /// dB SPL − dBFS: what the phone's model must add to read as the meter.
        public var offsetDB: Double
        /// Seconds both measured.
        public var seconds: Int
        /// 1.4826·MAD of the per-second differences, dB.
        public var spreadDB: Double
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case tooFewSeconds(found: Int)
        case unsteady(spreadDB: Double, seconds: Int)

        public var description: String {
            switch self {
            case .tooFewSeconds(let found):
                "the recording and the meter share \(found) second(s); at least \(MeterComparison.minimumSeconds) are needed"
            case .unsteady(let spread, let seconds):
                "over \(seconds) shared seconds the meter and the phone differ by a spread of "
                    + "\(Double(Int(spread * 100)) / 100) dB (at most \(MeterComparison.maximumSpreadDB)): they did not hear the same sound"
            }
        }
    }

    /// `phone` and `meter`: levels by whole second (seconds since 1970, UTC). Seconds only one of
    /// them has are ignored.
    public static func offset(phone: [Int64: Double], meter: [Int64: Double]) -> Swift.Result<Result, Failure> {
        let differences = phone.compactMap { second, level in meter[second].map { $0 - level } }
        guard differences.count >= minimumSeconds, let median = RobustStatistics.median(differences) else {
            return .failure(.tooFewSeconds(found: differences.count))
        }
        let spread = RobustStatistics.madToSigma * (RobustStatistics.medianAbsoluteDeviation(differences) ?? 0)
        guard spread <= maximumSpreadDB else {
            return .failure(.unsteady(spreadDB: spread, seconds: differences.count))
        }
        return .success(Result(offsetDB: median, seconds: differences.count, spreadDB: spread))
    }
}
