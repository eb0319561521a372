import Foundation

/// The rules that label a window from its ``SoundFeatures``, in order; the first that holds
/// decides. Thresholds were tuned on the tuning half of the synthetic set made by
/// `scripts/sound-character/` (docs/ARCHITECTURE.md, "What kind of loud").
public struct SoundCharacterRules: Sendable, Equatable, Codable {
    /// Under this LAeq a window is `quiet`: −60 dBFS is 50 dB(A) at the server's default
    /// reference offset (110 dB), under the ~57 dB(A) where people start raising their voices.
    public var quietBelowDBFS = -60.0
    /// Steady noise: flat spectrum (noise-like) …
    public var noiseMinimumFlatnessDB = -4.0
    /// … and an envelope that hardly moves between 0.5 and 6 Hz.
    public var noiseMaximumDepth = 0.12
    /// Babble: syllable-rate modulation above beat-rate modulation …
    public var babbleMinimumModulationRatioDB = 0.0
    /// … with many quiet frames between syllables.
    public var babbleMinimumLowEnergyShare = 0.3
    /// Music: a tonal spectrum.
    public var musicMaximumFlatnessDB = -5.0
    /// Bass-heavy music: LC − LA at least this …
    public var bassMinimumLcMinusLaDB = 10.0
    /// … or this much low-frequency excess.
    public var bassMinimumLowFrequencyExcessDB = 6.0

    public init() {}

    /// The label and the rule's reason for `features`.
    public func classify(_ f: SoundFeatures) -> (label: SoundCharacterLabel, reason: String) {
        if f.laeqDBFS < quietBelowDBFS {
            return (.quiet, "LAeq \(Self.db(f.laeqDBFS)) dBFS < \(Self.db(quietBelowDBFS))")
        }
        guard let flatness = f.flatnessDB, let depth = f.modulationDepth, let ratio = f.modulationRatioDB,
            let lowShare = f.lowEnergyShare
        else { return (.uncertain, "too short or too silent to measure its modulation") }
        if flatness >= noiseMinimumFlatnessDB && depth <= noiseMaximumDepth {
            return (
                .steadyNoise,
                "flatness \(Self.db(flatness)) dB ≥ \(Self.db(noiseMinimumFlatnessDB)) and modulation depth \(Self.share(depth)) ≤ \(Self.share(noiseMaximumDepth))"
            )
        }
        if ratio >= babbleMinimumModulationRatioDB && lowShare >= babbleMinimumLowEnergyShare {
            return (
                .babble,
                "modulation 3–6 Hz over 0.5–2.5 Hz \(Self.db(ratio)) dB ≥ \(Self.db(babbleMinimumModulationRatioDB)) and low-energy frames \(Self.share(lowShare)) ≥ \(Self.share(babbleMinimumLowEnergyShare))"
            )
        }
        if flatness <= musicMaximumFlatnessDB {
            let excess = f.lowFrequencyExcessDB ?? -.infinity
            if f.lcMinusLaDB >= bassMinimumLcMinusLaDB || excess >= bassMinimumLowFrequencyExcessDB {
                return (
                    .bassHeavyMusic,
                    "flatness \(Self.db(flatness)) dB ≤ \(Self.db(musicMaximumFlatnessDB)) and LC − LA \(Self.db(f.lcMinusLaDB)) dB or low-frequency excess \(Self.db(excess)) dB high"
                )
            }
            return (.music, "flatness \(Self.db(flatness)) dB ≤ \(Self.db(musicMaximumFlatnessDB))")
        }
        return (.uncertain, "no rule holds")
    }

    static func db(_ value: Double) -> String {
        guard value.isFinite else { return value > 0 ? "∞" : "−∞" }
        let text = String(format: "%.1f", value)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }

    static func share(_ value: Double) -> String { String(format: "%.2f", value) }
}
