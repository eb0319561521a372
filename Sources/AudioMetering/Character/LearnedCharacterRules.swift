import AudioClassification
import Foundation
import LoudnessCore

/// How a window is labelled from the AudioSet model's class scores (``AudioSetGroup`` groups the
/// 521 classes; a group's score is its best class's mean probability over the window's patches,
/// the best rather than the sum because AudioSet's labels nest: "Music" and "Pop music" fire
/// together):
///
/// 1. `quiet`: LAeq under ``quietBelowDBFS`` (the level, which the model does not see: it hears a
///    whisper and a shout alike), or "Silence" above every other group.
/// 2. `uncertain` when no group of voices, music or steady noise reaches ``minimumScore``
///    (each weighted as in 3).
/// 3. The best of voices (`babble`), music (× ``musicWeight``) and steady noise
///    (× ``steadyNoiseWeight``) decides. *Why the weights:* the model was trained to name every
///    sound present, and it names voices with confidence even 10 dB under music or an engine,
///    while it spreads a steady noise over many sources (wind, water, engine, hum), each less sure;
///    a person in the room hears the louder sound.
/// 4. Music is `bass_heavy_music` when its bass classes reach ``bassMinimumScore``, or when the
///    spectrum says so as the rules do (LC − LA and the bands to 160 Hz over 500 Hz–4 kHz).
///
/// Thresholds tuned on the tuning half of the real recordings (scripts/sound-character/real.py),
/// checked on the held-out half (docs/ARCHITECTURE.md, "What kind of loud").
public struct LearnedCharacterRules: Sendable, Equatable, Codable {
    public var quietBelowDBFS = SoundCharacterThresholds.quietBelowDBFS
    // Tuned on the tuning half of the real set (scripts/sound-character/tune-model.py, a grid over
    // the four): the most windows right among the four classes, steady-noise recall counted again
    // up to 0.75. Its best (92.3 %, recall 0.96) has minimum 0.02; 0.05, one window fewer, is the
    // middle of the values within a point of it. The bass threshold changes nothing on the real set
    // (it has no bass-heavy class) and is set high, so that the spectra decide bass as before.
    /// A group's (weighted) best class must reach this mean probability for the window to get its label.
    public var minimumScore: Float = 0.05
    public var musicWeight: Float = 0.5
    public var steadyNoiseWeight: Float = 3
    /// The bass classes' best mean probability that makes music bass-heavy.
    public var bassMinimumScore: Float = 0.5
    public var bassMinimumLcMinusLaDB = SoundCharacterThresholds.bassMinimumLcMinusLaDB
    public var bassMinimumLowFrequencyExcessDB = SoundCharacterThresholds.bassMinimumLowFrequencyExcessDB
    public init() {}

    /// Best mean probability per group.
    public struct GroupScores: Sendable, Equatable {
        public var voices: Float = 0
        public var music: Float = 0
        public var bass: Float = 0
        public var steadyNoise: Float = 0
        public var silence: Float = 0

        public init(scores: [Float], groups: [AudioSetGroup?]) {
            for (score, group) in zip(scores, groups) {
                switch group {
                case .voices: voices = max(voices, score)
                case .music: music = max(music, score)
                case .bass:
                    bass = max(bass, score)
                    music = max(music, score)
                case .steadyNoise: steadyNoise = max(steadyNoise, score)
                case .silence: silence = max(silence, score)
                case nil: break
                }
            }
        }

        /// The groups' best classes of a window's pooled scores (bass classes count as music too,
        /// as in ``init(scores:groups:)``).
        public init(_ pooled: RecordingClassifier.WindowScores) {
            let best = pooled.groupBest
            voices = best[.voices] ?? 0
            bass = best[.bass] ?? 0
            music = max(best[.music] ?? 0, bass)
            steadyNoise = best[.steadyNoise] ?? 0
            silence = best[.silence] ?? 0
        }

        public init(voices: Float = 0, music: Float = 0, bass: Float = 0, steadyNoise: Float = 0, silence: Float = 0) {
            self.voices = voices
            self.music = music
            self.bass = bass
            self.steadyNoise = steadyNoise
            self.silence = silence
        }
    }

    public func classify(_ f: SoundFeatures, _ g: GroupScores) -> (label: SoundCharacterLabel, reason: String) {
        let db = SoundCharacterRules.db
        if f.laeqDBFS < quietBelowDBFS {
            return (.quiet, "LAeq \(db(f.laeqDBFS)) dBFS < \(db(quietBelowDBFS))")
        }
        let music = g.music * musicWeight
        let noise = g.steadyNoise * steadyNoiseWeight
        let scores =
            "voices \(Self.p(g.voices)), music \(Self.p(g.music)) × \(Self.p(musicWeight)), steady noise "
            + "\(Self.p(g.steadyNoise)) × \(Self.p(steadyNoiseWeight))"
        if g.silence > max(g.voices, music, noise) && g.silence >= minimumScore {
            return (.quiet, "the model hears silence (\(Self.p(g.silence))) over \(scores)")
        }
        let best = max(g.voices, music, noise)
        guard best >= minimumScore else {
            return (.uncertain, "no group reaches \(Self.p(minimumScore)): \(scores)")
        }
        if g.voices == best { return (.babble, "voices lead: \(scores)") }
        if noise == best { return (.steadyNoise, "steady noise leads: \(scores)") }
        if g.bass >= bassMinimumScore {
            return (.bassHeavyMusic, "music leads (\(scores)) and its bass classes reach \(Self.p(g.bass))")
        }
        if f.lcMinusLaDB >= bassMinimumLcMinusLaDB, let excess = f.lowFrequencyExcessDB,
            excess >= bassMinimumLowFrequencyExcessDB
        {
            return (
                .bassHeavyMusic,
                "music leads (\(scores)); LC − LA \(db(f.lcMinusLaDB)) dB and bands to 160 Hz \(db(excess)) dB over "
                    + "500 Hz–4 kHz"
            )
        }
        return (.music, "music leads: \(scores)")
    }

    static func p(_ value: Float) -> String { String(format: "%.2f", value) }
}
