/// Per-second levels of one audio file, and what kind of sound it holds.
public struct MeteredAudio: Sendable, Equatable {
    public var format: AudioFormatDescription
    public var samples: [LevelSample]
    public var trailingPartialSecond: TrailingPartialSecond
    /// Windows of about 10 s labelled babble, music, … with the features behind each label.
    public var character: SoundCharacter

    public init(
        format: AudioFormatDescription, samples: [LevelSample],
        trailingPartialSecond: TrailingPartialSecond, character: SoundCharacter
    ) {
        self.format = format
        self.samples = samples
        self.trailingPartialSecond = trailingPartialSecond
        self.character = character
    }
}
