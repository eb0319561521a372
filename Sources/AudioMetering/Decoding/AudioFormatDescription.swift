/// What libsndfile says about the decoded file.
public struct AudioFormatDescription: Sendable, Equatable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Frames actually decoded (one frame holds one sample per channel).
    public var frameCount: Int
    public var durationSeconds: Double
    /// Container name from libsndfile, e.g. "WAV (Microsoft)".
    public var formatName: String
    /// Encoding name from libsndfile, e.g. "Signed 16 bit PCM".
    public var encodingName: String

    public init(
        sampleRate: Int, channelCount: Int, frameCount: Int, durationSeconds: Double,
        formatName: String, encodingName: String
    ) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.durationSeconds = durationSeconds
        self.formatName = formatName
        self.encodingName = encodingName
    }
}
