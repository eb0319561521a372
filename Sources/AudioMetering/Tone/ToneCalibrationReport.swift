import Foundation

/// The v2 JSON of a tone calibration, rounded for people: frequency to 0.1 Hz, levels and the
/// offset to 0.01 dB (ten times finer than the ±0.1 dB the method is good for), the SNR to
/// 0.1 dB, the length to 1 ms. `POST /api/v2/calibrations/tone` answers it and
/// `hearclear calibrate tone --json` prints it, so the two never differ.
public struct ToneCalibrationReport: Encodable, Sendable, Equatable {
    public var frequencyHz: Double
    public var levelDbfs: Double
    public var offsetDb: Double
    public var snrDb: Double
    public var seconds: Double

    public init(_ result: ToneCalibrationResult) {
        frequencyHz = Self.round(result.frequencyHz, places: 1)
        levelDbfs = Self.round(result.levelDBFS, places: 2)
        offsetDb = Self.round(result.offsetDB, places: 2)
        snrDb = Self.round(result.snrDB, places: 1)
        seconds = Self.round(result.seconds, places: 3)
    }

    private static func round(_ value: Double, places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}
