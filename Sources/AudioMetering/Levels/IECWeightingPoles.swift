import Foundation

/// The analogue poles of IEC 61672-1's frequency weightings, and the biquads A and C share
/// (``FrequencyWeightings``).
///
/// Both weightings have a double pole at 20.598997 Hz (with s² above it) and a double pole at
/// 12194.217 Hz; A adds single poles at 107.65265 and 737.86223 Hz (with another s²). Each
/// analogue section is mapped by the bilinear transform. The bilinear transform squeezes the
/// whole frequency axis into 0 … Nyquist, so a section designed with k = 2·fs answers at f what
/// the analogue section answers at (fs/π)·tan(π·f/fs): at 48 kHz the 12194 Hz pole pair would
/// read 8 kHz as 8.8 kHz, 0.54 dB low. The high pair is therefore pre-warped (its own k) to be
/// exact at ``highMatchHz(sampleRate:)``, fs/6 up to 16 kHz: at 44.1, 48 and 96 kHz both
/// weightings are then within 0.15 dB of the analogue curve at every octave centre from 31.5 Hz to
/// 8 kHz (and 16 kHz at 96 kHz). The low sections keep k = 2·fs, where the warping is negligible.
enum IECWeightingPoles {
    static let lowHz = 20.598997
    static let midLowHz = 107.65265
    static let midHighHz = 737.86223
    static let highHz = 12194.217

    static func radians(_ hz: Double) -> Double { 2 * Double.pi * hz }

    /// The frequency at which the high pole pair's digital response equals the analogue one.
    static func highMatchHz(sampleRate: Double) -> Double { min(sampleRate / 6, 16000) }

    /// s² / (s + ω₁)²: the double low pole and two of the zeros at 0 Hz.
    static func lowSection(sampleRate: Double) -> Biquad {
        let w1 = radians(lowHz)
        return Biquad(analogNumerator: (1, 0, 0), denominator: (1, 2 * w1, w1 * w1), k: 2 * sampleRate)
    }

    /// 1 / (s + ω₄)², pre-warped so that it is exact at ``highMatchHz(sampleRate:)``.
    static func highSection(sampleRate: Double) -> Biquad {
        let w4 = radians(highHz)
        let match = highMatchHz(sampleRate: sampleRate)
        let k = radians(match) / tan(Double.pi * match / sampleRate)
        return Biquad(analogNumerator: (0, 0, 1), denominator: (1, 2 * w4, w4 * w4), k: k)
    }
}
