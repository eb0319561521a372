/// What kind of loud a window of a check-in's seconds is (docs/ARCHITECTURE.md, "Sound
/// character"), and of a window of a recording the meter classifies (`SoundCharacterLabel` in
/// AudioMetering is this type). The order of `allCases` is the order of the stored per-label
/// second counts (`character_class_seconds`), so never reorder them.
public enum SoundClass: String, Sendable, CaseIterable, Codable {
    /// Voices: one or many people talking.
    case babble
    /// Music without a low-frequency excess.
    case music
    /// Music whose bass stands out: LC − LA or the low bands are high.
    case bassHeavyMusic = "bass_heavy_music"
    /// Sound whose level and spectrum hardly move: ventilation, traffic, a fridge.
    case steadyNoise = "steady_noise"
    /// Too quiet for its character to matter.
    case quiet
    /// The features do not point clearly to one of the others.
    case uncertain

    /// Position in ``allCases`` (and in the stored per-label counts).
    public var index: Int { Self.allCases.firstIndex(of: self)! }
}
