import Foundation
import LoudnessCore

/// The rules that label a window from its ``SoundFeatures``: a decision list, the first rule that
/// holds decides, and the label comes with the rule and the values it compared.
///
/// 1. `quiet`: LAeq under ``quietBelowDBFS``.
/// 2. `uncertain` when a feature is missing (a window under 3 s, or silent in the speech bands).
/// 3. `steady_noise`: a noise-like spectrum (flatness at least ``noiseMinimumFlatnessDB``) whose
///    envelope hardly moves (modulation depth at most ``noiseMaximumDepth``).
/// 4. `bass_heavy_music`: LC − LA at least ``bassMinimumLcMinusLaDB`` and the bands up to 160 Hz
///    at least ``bassMinimumLowFrequencyExcessDB`` above those of 500 Hz–4 kHz.
/// 5. `babble`: little below 160 Hz (low-frequency excess at most
///    ``babbleMaximumLowFrequencyExcessDB``: voices carry their energy from 200 Hz up) and not
///    tonal (flatness at least ``babbleMinimumFlatnessDB``).
/// 6. `music`: a tonal spectrum (flatness at most ``musicMaximumFlatnessDB``).
/// 7. `babble`: syllable-rate modulation (3–6 Hz over 0.5–2.5 Hz at least
///    ``babbleMinimumModulationRatioDB``) with many quiet frames between syllables (at least
///    ``babbleMinimumLowEnergyShare``), when the spectrum alone did not say.
/// 8. `music`: beat-rate modulation (3–6 Hz over 0.5–2.5 Hz at most
///    ``musicMaximumModulationRatioDB``), when the spectrum alone did not say.
/// 9. `uncertain` otherwise.
///
/// The thresholds were tuned on the tuning half of the synthetic set made by
/// `scripts/sound-character/` (`tune.py`) and checked on the other half (docs/ARCHITECTURE.md,
/// "What kind of loud"). The thresholds of LAeq, LC − LA and the low-frequency excess are
/// LoudnessCore's `SoundCharacterThresholds`, which the server's per-second rules use too.
public struct SoundCharacterRules: Sendable, Equatable, Codable {
    /// Under this LAeq a window is `quiet`: −60 dBFS is 50 dB(A) at the server's default
    /// reference offset (110 dB), under the ~57 dB(A) where people start raising their voices.
    public var quietBelowDBFS = SoundCharacterThresholds.quietBelowDBFS
    // Tuned on the tuning half (tune.py: coordinate descent, each threshold then moved to the middle
    // of the values that score as well; the ranges quoted are the 10th–90th percentiles of its clean
    // windows). Where that run reached the end of the grid searched, the
    // value is a choice inside it: a depth of 0.2 (a level moving by about ±28 %), syllable-rate
    // modulation at least as strong as beat-rate (0 dB) and 15 % of quiet frames for babble.
    /// Noise-like: Gaussian noise reads −2.5 dB.
    public var noiseMinimumFlatnessDB = -3.0
    /// Steady: clean noises read 0.03–0.05; voices and music 0.3 and more.
    public var noiseMaximumDepth = 0.2
    /// The mark of a low-frequency problem: LCeq − LAeq above about 10 dB.
    public var bassMinimumLcMinusLaDB = SoundCharacterThresholds.bassMinimumLcMinusLaDB
    public var bassMinimumLowFrequencyExcessDB = SoundCharacterThresholds.bassMinimumLowFrequencyExcessDB
    /// Voices read −17 to −9 dB alone, music −5 to +5, noise 0 (pink) to +11 (brown).
    public var babbleMaximumLowFrequencyExcessDB = SoundCharacterThresholds.babbleMaximumLowFrequencyExcessDB
    /// Voices read −9 to −4.7 dB, chords and melodies −16 to −11.
    public var babbleMinimumFlatnessDB = -11.0
    public var musicMaximumFlatnessDB = -6.0
    public var babbleMinimumModulationRatioDB = 0.0
    public var babbleMinimumLowEnergyShare = 0.15
    public var musicMaximumModulationRatioDB = 0.0
    public init() {}

    /// The label and the rule's reason for `features`.
    public func classify(_ f: SoundFeatures) -> (label: SoundCharacterLabel, reason: String) {
        if f.laeqDBFS < quietBelowDBFS {
            return (.quiet, "LAeq \(Self.db(f.laeqDBFS)) dBFS < \(Self.db(quietBelowDBFS))")
        }
        guard let flatness = f.flatnessDB, let depth = f.modulationDepth, let ratio = f.modulationRatioDB,
            let lowShare = f.lowEnergyShare, let excess = f.lowFrequencyExcessDB
        else { return (.uncertain, "too short or too silent to measure its spectrum and modulation") }
        if flatness >= noiseMinimumFlatnessDB && depth <= noiseMaximumDepth {
            return (
                .steadyNoise,
                "noise-like spectrum (flatness \(Self.db(flatness)) dB ≥ \(Self.db(noiseMinimumFlatnessDB))) "
                    + "with a steady envelope (modulation depth \(Self.share(depth)) ≤ \(Self.share(noiseMaximumDepth)))"
            )
        }
        if f.lcMinusLaDB >= bassMinimumLcMinusLaDB && excess >= bassMinimumLowFrequencyExcessDB {
            return (
                .bassHeavyMusic,
                "LC − LA \(Self.db(f.lcMinusLaDB)) dB ≥ \(Self.db(bassMinimumLcMinusLaDB)) and bands to 160 Hz "
                    + "\(Self.db(excess)) dB over 500 Hz–4 kHz ≥ \(Self.db(bassMinimumLowFrequencyExcessDB)), "
                    + "with an envelope that moves (modulation depth \(Self.share(depth)))"
            )
        }
        if excess <= babbleMaximumLowFrequencyExcessDB && flatness >= babbleMinimumFlatnessDB {
            return (
                .babble,
                "little below 160 Hz (\(Self.db(excess)) dB against 500 Hz–4 kHz ≤ "
                    + "\(Self.db(babbleMaximumLowFrequencyExcessDB))) and not tonal (flatness \(Self.db(flatness)) dB ≥ "
                    + "\(Self.db(babbleMinimumFlatnessDB)))"
            )
        }
        if flatness <= musicMaximumFlatnessDB {
            return (.music, "tonal spectrum (flatness \(Self.db(flatness)) dB ≤ \(Self.db(musicMaximumFlatnessDB)))")
        }
        if ratio >= babbleMinimumModulationRatioDB && lowShare >= babbleMinimumLowEnergyShare {
            return (
                .babble,
                "syllable-rate modulation (3–6 Hz over 0.5–2.5 Hz \(Self.db(ratio)) dB ≥ "
                    + "\(Self.db(babbleMinimumModulationRatioDB))) with quiet frames between "
                    + "(\(Self.share(lowShare)) ≥ \(Self.share(babbleMinimumLowEnergyShare)))"
            )
        }
        if ratio <= musicMaximumModulationRatioDB {
            return (
                .music,
                "beat-rate modulation (3–6 Hz over 0.5–2.5 Hz \(Self.db(ratio)) dB ≤ "
                    + "\(Self.db(musicMaximumModulationRatioDB)))"
            )
        }
        return (
            .uncertain,
            "no rule holds (flatness \(Self.db(flatness)) dB, bands to 160 Hz \(Self.db(excess)) dB against "
                + "500 Hz–4 kHz, modulation 3–6 over 0.5–2.5 Hz \(Self.db(ratio)) dB, depth \(Self.share(depth)))"
        )
    }

    /// One decimal, with a true minus sign.
    static func db(_ value: Double) -> String {
        guard value.isFinite else { return value > 0 ? "∞" : "−∞" }
        let text = String(format: "%.1f", value)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }

    static func share(_ value: Double) -> String { String(format: "%.2f", value) }
}
