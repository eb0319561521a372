import Foundation
import LoudnessCore

/// The ways of estimating a cell that `simulate --evaluate` compares with the server's answer,
/// all on the check-ins of one cell, in calibrated dB (dBFS + the reference offset).
enum SimulationMethods {
    /// The 2013 server's estimator: mean of the check-ins' mean amplitudes, drop those outside
    /// mean ± 1 SD (population SD), mean again, back to dB. Which check-ins form the cell is the
    /// caller's business: the 2013 server bucketed them by its own clock (see
    /// ``legacyCellKey(venue:start:serverZone:)``).
    static func method2013(_ checkins: [SimulationTruth.Checkin], referenceOffsetDB: Double) -> Double? {
        let amplitudes = checkins.map(\.meanAmplitude)
        guard !amplitudes.isEmpty else { return nil }
        let mean = amplitudes.reduce(0, +) / Double(amplitudes.count)
        let sd = (amplitudes.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(amplitudes.count)).squareRoot()
        let kept = amplitudes.filter { abs($0 - mean) <= sd }
        let chosen = kept.isEmpty ? amplitudes : kept
        let amplitude = chosen.reduce(0, +) / Double(chosen.count)
        return 20 * log10(max(amplitude, 1e-8)) + referenceOffsetDB
    }

    /// The cell `venue|weekday|hour` the 2013 server put a check-in made at `start` in: weekday
    /// (ISO, 1 = Monday) and hour on the server's clock, whatever the venue's zone.
    static func legacyCellKey(venue: String, start: Date, serverZone: TimeZone) -> String {
        let local = VenueClock(timeZone: serverZone).localHour(at: start)
        return "\(venue)|\(local.weekday)|\(local.hour)"
    }

    /// Plain energetic mean of every check-in's Leq, no cleaning, no rejection.
    static func energeticMean(_ checkins: [SimulationTruth.Checkin], referenceOffsetDB: Double) -> Double? {
        Level.energeticMean(checkins.map(\.leqDBFS)).map { $0 + referenceOffsetDB }
    }

    /// Not an aim, a yardstick: the mean Leq (in dB) of only the clean check-ins. For honest
    /// check-ins spread normally in dB it is the most efficient estimate, so it shows how much of
    /// beating the oracle is only the median's inefficiency.
    static func cleanMean(_ checkins: [SimulationTruth.Checkin], referenceOffsetDB: Double) -> Double? {
        let clean = checkins.filter { $0.contamination == nil }.map(\.leqDBFS)
        guard !clean.isEmpty else { return nil }
        return clean.reduce(0, +) / Double(clean.count) + referenceOffsetDB
    }

    /// The oracle: the median Leq of only the clean check-ins (the simulator knows which).
    static func oracle(_ checkins: [SimulationTruth.Checkin], referenceOffsetDB: Double) -> Double? {
        RobustStatistics.median(checkins.filter { $0.contamination == nil }.map(\.leqDBFS))
            .map { $0 + referenceOffsetDB }
    }
}
