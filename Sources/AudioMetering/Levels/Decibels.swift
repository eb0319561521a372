import Foundation

/// Conversions to dBFS, floored at `LevelSample.silenceFloorDBFS` so silence stays finite.
enum Decibels {
    static func fromMeanSquare(_ meanSquare: Double) -> Double {
        guard meanSquare > 0 else { return LevelSample.silenceFloorDBFS }
        return max(LevelSample.silenceFloorDBFS, 10 * log10(meanSquare))
    }

    static func fromAmplitude(_ amplitude: Double) -> Double {
        guard amplitude > 0 else { return LevelSample.silenceFloorDBFS }
        return max(LevelSample.silenceFloorDBFS, 20 * log10(amplitude))
    }
}
