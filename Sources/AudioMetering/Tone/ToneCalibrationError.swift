import Foundation

/// Why a recording gave no calibration offset.
public enum ToneCalibrationError: Error, Sendable, Equatable {
    /// The bytes could not be decoded, or are too long: the same errors as ``AudioMeter``.
    case audio(AudioMeteringError)
    /// The audio was read, but it holds no clean calibrator tone; the reason says what it holds.
    case noTone(NoToneReason)
}

/// What a recording held instead of one clean, steady tone. Its `description` is written for the
/// person holding the calibrator: it says what was found and what was needed.
public enum NoToneReason: Sendable, Equatable, CustomStringConvertible {
    /// Shorter than ``ToneCalibration/minimumSeconds``: too few seconds to see that the level is steady.
    case tooShort(seconds: Double)
    /// The whole recording is below ``ToneCalibration/silenceFloorDBFS``: the calibrator was off or
    /// the microphone muted.
    case silence(levelDBFS: Double)
    /// Two or more peaks each hold at least ``ToneCalibration/componentShareDB`` of the power:
    /// two calibrators, a chord, music. Strongest first.
    case severalTones(frequenciesHz: [Double], levelsDBFS: [Double])
    /// The strongest peak does not stand ``ToneCalibration/minimumSNRDB`` above the rest of the spectrum.
    case noise(strongestHz: Double, snrDB: Double)
    /// The tone's per-second levels stray more than ``ToneCalibration/stabilityToleranceDB`` from their median.
    case unstableLevel(frequencyHz: Double, secondLevelsDBFS: [Double], spreadDB: Double)
    /// Below ``ToneCalibration/minimumSampleRate``: too few frequencies to find a calibrator's tone in.
    case sampleRateTooLow(sampleRate: Int)

    public var description: String {
        switch self {
        case .tooShort(let seconds):
            return String(
                format:
                    "too short: %.2f s of audio; at least %.0f s of the tone are needed to see that its level is steady",
                seconds, ToneCalibration.minimumSeconds)
        case .silence(let level):
            return String(
                format:
                    "silence: the recording's level is %.1f dBFS, below %.0f dBFS; is the calibrator on the microphone and switched on?",
                level, ToneCalibration.silenceFloorDBFS)
        case .severalTones(let frequencies, let levels):
            let tones = zip(frequencies, levels).map { String(format: "%.1f Hz (%.1f dBFS)", $0, $1) }
            if tones.count == 2 {
                return "two tones: \(tones[0]) and \(tones[1]); a calibrator plays one"
            }
            return "\(tones.count) tones (music-like: a chord or a sound with harmonics): "
                + "\(tones.joined(separator: ", ")); a calibrator plays one"
        case .noise(let hz, let snr):
            return String(
                format:
                    "noise: the strongest peak, at %.1f Hz, stands only %.1f dB above the rest of the spectrum; a clean tone needs %.0f dB",
                hz, snr, ToneCalibration.minimumSNRDB)
        case .unstableLevel(let hz, let levels, let spread):
            let low = levels.min() ?? 0
            let high = levels.max() ?? 0
            return String(
                format:
                    "unstable level: the %.1f Hz tone's per-second levels range from %.2f to %.2f dBFS, up to %.2f dB from their median; a steady tone stays within ±%.1f dB",
                hz, low, high, spread, ToneCalibration.stabilityToleranceDB)
        case .sampleRateTooLow(let sampleRate):
            return "the sample rate is \(sampleRate) Hz; at least \(ToneCalibration.minimumSampleRate) Hz is needed"
        }
    }
}
