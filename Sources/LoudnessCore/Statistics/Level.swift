import Foundation

/// Conversions between dBFS and linear amplitude, and the energetic mean of levels.
public enum Level {
    /// The level reported for silence: amplitudes at or below `10^(−160/20)` (and zero or negative
    /// amplitudes) map to −160 dBFS, the floor iOS metering reports.
    public static let floorDBFS: Double = -160

    /// `amplitude(fromDBFS:)`: linear amplitude `10^(dB/20)` of a dBFS level (0 dBFS → 1).
    public static func amplitude(fromDBFS levelDBFS: Double) -> Double {
        pow(10, levelDBFS / 20)
    }

    /// `dBFS(fromAmplitude:)`: `20·log10(amplitude)`, never below ``floorDBFS``; zero, negative or
    /// NaN amplitudes give ``floorDBFS``.
    public static func dBFS(fromAmplitude amplitude: Double) -> Double {
        guard amplitude > 0 else { return floorDBFS }
        return max(floorDBFS, 20 * log10(amplitude))
    }

    /// `energeticMean(_:)`: the equivalent continuous level `Leq = 10·log10(mean(10^(L/10)))` of
    /// levels in dB (any reference), or `nil` for no levels. Computed relative to the loudest
    /// level so that very high or very low levels neither overflow nor underflow.
    public static func energeticMean(_ levelsDB: [Double]) -> Double? {
        guard let loudest = levelsDB.max() else { return nil }
        var sum = 0.0
        for level in levelsDB {
            sum += pow(10, (level - loudest) / 10)
        }
        return loudest + 10 * log10(sum / Double(levelsDB.count))
    }
}
