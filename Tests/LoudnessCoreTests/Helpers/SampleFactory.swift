import LoudnessCore

/// Builds per-second sample fixtures for the cleaning tests.
enum SampleFactory {
    /// Small deterministic wobble: every 5 consecutive values span ≥ 0.3 dB (never a stuck meter)
    /// and no value is more than 0.5 dB from the base (never a spike at the 3 dB Hampel floor).
    static let wobbleDB: [Double] = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]

    /// `count` levels around `baseDBFS` with ``wobbleDB`` added, starting at wobble position `phase`.
    static func varied(_ count: Int, around baseDBFS: Double, phase: Int = 0) -> [Double] {
        (0..<count).map { baseDBFS + wobbleDB[($0 + phase) % wobbleDB.count] }
    }

    /// Samples one second apart from offset 0, with each peak 10 dB over its average.
    static func samples(_ averages: [Double]) throws -> SessionSamples {
        try SessionSamples(
            offsetsSeconds: averages.indices.map(Double.init),
            averageDBFS: averages,
            peakDBFS: averages.map { $0 + 10 })
    }

    /// Indices whose rejection equals `reason`.
    static func indices(of reason: SecondRejection, in cleaned: CleanedSession) -> [Int] {
        cleaned.rejections.indices.filter { cleaned.rejections[$0] == reason }
    }
}
