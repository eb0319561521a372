import Foundation

/// The ways of estimating a cell that `simulate --evaluate` compares with the server's answer,
/// all on the check-ins of one cell, in calibrated dB (dBFS + the reference offset).
enum SimulationMethods {
    /// The 2013 server: mean of the check-ins' mean amplitudes, drop those outside mean ± 1 SD
    /// (population SD), mean again, back to dB.
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

    /// Plain energetic mean of every check-in's Leq, no cleaning, no rejection.
    static func energeticMean(_ checkins: [SimulationTruth.Checkin], referenceOffsetDB: Double) -> Double? {
        guard let loudest = checkins.map(\.leqDBFS).max() else { return nil }
        let sum = checkins.reduce(0) { $0 + pow(10, ($1.leqDBFS - loudest) / 10) }
        return loudest + 10 * log10(sum / Double(checkins.count)) + referenceOffsetDB
    }

    /// The oracle: the median Leq of only the clean check-ins (the simulator knows which).
    static func oracle(_ checkins: [SimulationTruth.Checkin], referenceOffsetDB: Double) -> Double? {
        let clean = checkins.filter { $0.contamination == nil }.map(\.leqDBFS).sorted()
        guard !clean.isEmpty else { return nil }
        let middle = clean.count / 2
        let median = clean.count % 2 == 1 ? clean[middle] : (clean[middle - 1] + clean[middle]) / 2
        return median + referenceOffsetDB
    }
}

/// Mean absolute error and share of correct labels of one method over the evaluated cells.
struct MethodScore {
    var name: String
    var absoluteErrors: [Double] = []
    var correctLabels = 0
    var missing = 0

    mutating func add(estimate: Double?, truth: Double, label: (Double) -> String) {
        guard let estimate else {
            missing += 1
            return
        }
        absoluteErrors.append(abs(estimate - truth))
        if label(estimate) == label(truth) { correctLabels += 1 }
    }

    var meanAbsoluteError: Double {
        absoluteErrors.isEmpty ? .nan : absoluteErrors.reduce(0, +) / Double(absoluteErrors.count)
    }

    var labelShare: Double {
        absoluteErrors.isEmpty ? .nan : Double(correctLabels) / Double(absoluteErrors.count)
    }
}
