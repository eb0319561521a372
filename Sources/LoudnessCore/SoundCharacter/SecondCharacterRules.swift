import Foundation

/// The features of one window of a check-in's kept seconds that one value a second allows
/// (docs/ARCHITECTURE.md, "Sound character"). The meter's classifier (AudioMetering's
/// `SoundFeatures`) also measures 20 ms frames: their modulation at syllable rate (3–6 Hz), the
/// quiet frames between syllables and a flatness over FFT bins; none of that can be had from one
/// value a second. What is left is below; nil when the window cannot give it (no LCeq, no band in
/// a range).
public struct SecondFeatures: Sendable, Equatable {
    /// Seconds in the window.
    public var seconds: Int
    /// Bands the check-in carries (0: LCeq only).
    public var bands: Int
    /// LAeq of the window: the energetic mean of its seconds' `average` (taken as each second's
    /// LAeq), dBFS as sent (no model offset).
    public var laeqDBFS: Double
    /// LCeq − LAeq of the window, dB (energetic means of `lceq` and `average`): about 0 when the
    /// sound is mostly above 500 Hz, 10 dB or more when low frequencies carry much of it.
    public var lcMinusLaDB: Double?
    /// Mean power of the bands 50–160 Hz over the mean power of the bands 500 Hz–4 kHz, over the
    /// window's seconds and the bands carried, dB: 0 for pink noise, above for bass. As the meter's.
    public var lowFrequencyExcessDB: Double?
    /// Spectral flatness within the octaves 250–500, 500–1000, 1000–2000 and 2000–4000 Hz, each
    /// over its three third-octave bands (geometric over arithmetic mean of their powers), averaged
    /// over the octaves and seconds, dB: 0 for a smooth spectrum, lower when one band of an
    /// octave stands out (a held note, a hum).
    public var flatnessDB: Double?
    /// How much the spectrum's *shape* changes from one second to the next: the RMS over the
    /// carried bands of each band's change less the mean change, averaged over pairs of
    /// consecutive kept seconds, dB. A noise whose level rises and falls keeps its shape (near
    /// the ~0.5 dB a second's band level varies by itself); music and voices change it.
    public var shapeFluxDB: Double?
    /// Mean absolute change of the level (`average`) between consecutive kept seconds, dB.
    public var levelFluxDB: Double?

    public init(
        seconds: Int, bands: Int, laeqDBFS: Double, lcMinusLaDB: Double?, lowFrequencyExcessDB: Double?,
        flatnessDB: Double?,
        shapeFluxDB: Double?, levelFluxDB: Double?
    ) {
        self.seconds = seconds
        self.bands = bands
        self.laeqDBFS = laeqDBFS
        self.lcMinusLaDB = lcMinusLaDB
        self.lowFrequencyExcessDB = lowFrequencyExcessDB
        self.flatnessDB = flatnessDB
        self.shapeFluxDB = shapeFluxDB
        self.levelFluxDB = levelFluxDB
    }
}

/// The rules that label a window of per-second data, in order; the first that holds decides
/// (docs/ARCHITECTURE.md, "Sound character"):
///
/// 1. `quiet`: LAeq under ``quietBelowDBFS``.
/// 2. `uncertain` without bands: LC − LA alone cannot tell music from a steady rumble.
/// 3. `steady_noise`: the spectrum's shape hardly moves (``steadyMaximumShapeFluxDB``), whatever
///    its level does (traffic, ventilation, a rumble).
/// 4. `uncertain` without a band both under 160 Hz and from 500 Hz to 4 kHz.
/// 5. `bass_heavy_music`: low-frequency excess at least ``bassMinimumLowFrequencyExcessDB`` and
///    LC − LA at least ``bassMinimumLcMinusLaDB``; without LCeq, the excess at least
///    ``bassWithoutLceqMinimumLowFrequencyExcessDB``.
/// 6. `babble`: little below 160 Hz (``babbleMaximumLowFrequencyExcessDB``), little LC − LA
///    (``babbleMaximumLcMinusLaDB``, when carried) and a smooth spectrum
///    (``babbleMinimumFlatnessDB``).
/// 7. `music`: some low-frequency content (``musicMinimumLowFrequencyExcessDB``) and a band
///    standing out in its octave (``musicMaximumFlatnessDB``) or LC − LA of
///    ``musicMinimumLcMinusLaDB``.
/// 8. `uncertain` otherwise.
///
/// Same labels as the meter's rules (`SoundCharacterRules` in AudioMetering), and the meter's
/// thresholds for the features both measure alike (LAeq, LC − LA, low-frequency excess:
/// ``SoundCharacterThresholds``). The
/// others were set on the tuning half of the synthetic set of `scripts/sound-character/` metered to
/// one value a second, bands from 100 Hz as a phone measures, and checked once on the other half.
///
/// The meter tells babble from music mostly by syllable-rate modulation, which one value a second
/// cannot show: here a window is `babble` or `music` only when its spectrum alone says so, and
/// `uncertain` otherwise, which it often is (about a third of the babble and music windows of the
/// held-out half).
public struct SecondCharacterRules: Sendable, Equatable {
    /// Under this LAeq a window is `quiet` (the meter's): −60 dBFS is 50 dB(A) at the default
    /// reference offset, under the ~57 dB(A) where people start raising their voices.
    public var quietBelowDBFS = SoundCharacterThresholds.quietBelowDBFS
    /// Steady noise: the spectrum's shape moves at most this from second to second (tuning half:
    /// steady noise a median of 0.6 dB and 90 % under 1.4; voices and music 90 % above 2).
    public var steadyMaximumShapeFluxDB = 1.2
    /// Bass-heavy music: low-frequency excess at least this (the meter's) …
    public var bassMinimumLowFrequencyExcessDB = SoundCharacterThresholds.bassMinimumLowFrequencyExcessDB
    /// … and LC − LA at least this (the meter's; the mark of a low-frequency problem).
    public var bassMinimumLcMinusLaDB = SoundCharacterThresholds.bassMinimumLcMinusLaDB
    /// Without LCeq, the low-frequency excess alone must reach this (at 4 dB, a third of the tuning
    /// half's music was called bass-heavy; at 8, 8 %).
    public var bassWithoutLceqMinimumLowFrequencyExcessDB = 8.0
    /// Babble: voices carry little under 160 Hz against 500 Hz–4 kHz (the meter's) …
    public var babbleMaximumLowFrequencyExcessDB = SoundCharacterThresholds.babbleMaximumLowFrequencyExcessDB
    /// … little LC − LA (tuning half: voices 90 % under 2.3 dB, music 75 % over 3.1) …
    public var babbleMaximumLcMinusLaDB = 3.0
    /// … and a smooth spectrum within octaves (voices: 90 % at −1.6 dB or more).
    public var babbleMinimumFlatnessDB = -1.5
    /// Music: some low-frequency content (tuning half: 90 % of music at −2.3 dB or more) …
    public var musicMinimumLowFrequencyExcessDB = -2.0
    /// … and a band standing out within its octave (a held note) …
    public var musicMaximumFlatnessDB = -1.0
    /// … or this much LC − LA.
    public var musicMinimumLcMinusLaDB = 3.0

    public init() {}

    /// The label and the rule that gave it, with the values it compared.
    public func classify(_ f: SecondFeatures) -> (label: SoundClass, reason: String) {
        if f.laeqDBFS < quietBelowDBFS {
            return (.quiet, "LAeq \(Self.db(f.laeqDBFS)) dBFS < \(Self.db(quietBelowDBFS))")
        }
        guard f.bands > 0 else {
            return (.uncertain, "no bands: LC − LA alone cannot tell music from a steady rumble")
        }
        if let shape = f.shapeFluxDB, shape <= steadyMaximumShapeFluxDB {
            return (
                .steadyNoise,
                "the spectrum's shape moves \(Self.db(shape)) dB a second ≤ \(Self.db(steadyMaximumShapeFluxDB))"
            )
        }
        guard let excess = f.lowFrequencyExcessDB else {
            return (.uncertain, "no bands both under 160 Hz and from 500 Hz to 4 kHz")
        }
        let difference = f.lcMinusLaDB
        if let bass = bassRule(excess: excess, difference: difference) { return bass }
        if let babble = babbleRule(f, excess: excess, difference: difference) { return babble }
        if let music = musicRule(f, excess: excess, difference: difference) { return music }
        return (
            .uncertain,
            "no rule holds (bands to 160 Hz \(Self.db(excess)) dB against 500 Hz–4 kHz"
                + (f.flatnessDB.map { ", flatness \(Self.db($0)) dB" } ?? "")
                + (difference.map { ", LC − LA \(Self.db($0)) dB" } ?? "")
                + "): voices and music look alike a second at a time"
        )
    }

    /// Bass-heavy music: much below 160 Hz, with LC − LA when there is an LCeq, more without.
    private func bassRule(excess: Double, difference: Double?) -> (label: SoundClass, reason: String)? {
        if let difference, excess >= bassMinimumLowFrequencyExcessDB, difference >= bassMinimumLcMinusLaDB {
            return (
                .bassHeavyMusic,
                "bands to 160 Hz \(Self.db(excess)) dB over 500 Hz–4 kHz ≥ \(Self.db(bassMinimumLowFrequencyExcessDB)) "
                    + "and LC − LA \(Self.db(difference)) dB ≥ \(Self.db(bassMinimumLcMinusLaDB)), not steady"
            )
        }
        if difference == nil, excess >= bassWithoutLceqMinimumLowFrequencyExcessDB {
            return (
                .bassHeavyMusic,
                "bands to 160 Hz \(Self.db(excess)) dB over 500 Hz–4 kHz ≥ "
                    + "\(Self.db(bassWithoutLceqMinimumLowFrequencyExcessDB)) (no LCeq), not steady"
            )
        }
        return nil
    }

    /// Babble: little below 160 Hz, little LC − LA and a smooth spectrum.
    private func babbleRule(_ f: SecondFeatures, excess: Double, difference: Double?) -> (
        label: SoundClass, reason: String
    )? {
        if excess <= babbleMaximumLowFrequencyExcessDB, (difference ?? -.infinity) <= babbleMaximumLcMinusLaDB,
            (f.flatnessDB ?? 0) >= babbleMinimumFlatnessDB
        {
            return (
                .babble,
                "little below 160 Hz (\(Self.db(excess)) dB against 500 Hz–4 kHz ≤ \(Self.db(babbleMaximumLowFrequencyExcessDB)))"
                    + (difference.map { ", LC − LA \(Self.db($0)) dB ≤ \(Self.db(babbleMaximumLcMinusLaDB))" } ?? "")
                    + (f.flatnessDB.map {
                        ", smooth (flatness \(Self.db($0)) dB ≥ \(Self.db(babbleMinimumFlatnessDB)))"
                    } ?? "")
            )
        }
        return nil
    }

    /// Music: some low-frequency content, and a band standing out or enough LC − LA.
    private func musicRule(_ f: SecondFeatures, excess: Double, difference: Double?) -> (
        label: SoundClass, reason: String
    )? {
        if excess >= musicMinimumLowFrequencyExcessDB {
            let low =
                "bands to 160 Hz \(Self.db(excess)) dB against 500 Hz–4 kHz ≥ \(Self.db(musicMinimumLowFrequencyExcessDB))"
            if let flatness = f.flatnessDB, flatness <= musicMaximumFlatnessDB {
                return (
                    .music,
                    low
                        + " and a band stands out (flatness \(Self.db(flatness)) dB ≤ \(Self.db(musicMaximumFlatnessDB)))"
                )
            }
            if let difference, difference >= musicMinimumLcMinusLaDB {
                return (.music, low + " and LC − LA \(Self.db(difference)) dB ≥ \(Self.db(musicMinimumLcMinusLaDB))")
            }
        }
        return nil
    }

    /// `12.3`, `−4.0` (a minus sign, not a hyphen), `∞`.
    static func db(_ value: Double) -> String {
        guard value.isFinite else { return value > 0 ? "∞" : "−∞" }
        let text = String(format: "%.1f", value)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }
}
