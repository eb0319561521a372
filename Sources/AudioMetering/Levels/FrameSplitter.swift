/// Cuts interleaved audio into consecutive frames of `frameLength` samples per channel,
/// de-interleaved. A trailing part shorter than a frame is counted in `frameCount` but is never
/// handed out as a frame.
struct FrameSplitter {
    let channelCount: Int
    let frameLength: Int
    private var channels: [[Float]]
    private var filled = 0
    /// Frames (one sample per channel) given so far.
    private(set) var frameCount = 0
    /// Whole frames handed out so far.
    private(set) var wholeFrames = 0

    init(channelCount: Int, frameLength: Int) {
        self.channelCount = channelCount
        self.frameLength = frameLength
        channels = Array(repeating: [Float](repeating: 0, count: frameLength), count: channelCount)
    }

    /// Appends `count` interleaved frames and calls `onFrame` with each frame completed, one
    /// array per channel.
    mutating func append(
        _ interleaved: UnsafeBufferPointer<Float>, count: Int, onFrame: ([[Float]]) -> Void
    ) {
        precondition(count * channelCount <= interleaved.count)
        var index = 0
        for _ in 0..<count {
            for channel in 0..<channelCount {
                channels[channel][filled] = interleaved[index]
                index += 1
            }
            filled += 1
            if filled == frameLength {
                onFrame(channels)
                filled = 0
                wholeFrames += 1
            }
        }
        frameCount += count
    }
}
