/// Per-second levels of one audio file.
public struct MeteredAudio: Sendable, Equatable {
    public var format: AudioFormatDescription
    public var samples: [LevelSample]
    public var trailingPartialSecond: TrailingPartialSecond

    public init(
        format: AudioFormatDescription, samples: [LevelSample],
        trailingPartialSecond: TrailingPartialSecond
    ) {
        self.format = format
        self.samples = samples
        self.trailingPartialSecond = trailingPartialSecond
    }
}
