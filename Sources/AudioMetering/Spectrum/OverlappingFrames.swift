import Foundation

/// Overlapping frames of several channels: the last `length` samples of each channel in a ring,
/// handed out windowed every `hop` samples once the first frame is full. Frame j holds samples
/// offset + j·hop ..< offset + j·hop + length of its stream: with an offset of half a hop, no
/// frame's centre falls on a second's edge when the hop divides the second (it would belong to
/// both seconds equally).
///
/// Not `Sendable`: one object serves one analysis.
final class OverlappingFrames {
    let channelCount: Int
    let length: Int
    let hop: Int
    private let window: [Float]
    private let rings: UnsafeMutableBufferPointer<Float>
    private var writeIndex = 0
    private var written = 0
    private var untilFrame: Int
    /// Frames handed out so far.
    private(set) var framesHandedOut = 0

    let offset: Int

    init(channelCount: Int, length: Int, hop: Int, offset: Int, window: AnalysisWindow) {
        self.channelCount = channelCount
        self.length = length
        self.hop = hop
        self.offset = offset
        self.window = window.coefficients(length)
        rings = .allocate(capacity: channelCount * length)
        rings.initialize(repeating: 0)
        untilFrame = length + offset
    }

    deinit { rings.deallocate() }

    /// Samples this stream may take before the next frame is full.
    var samplesUntilFrame: Int { untilFrame }

    /// Appends `count` interleaved frames starting at `interleaved[0]` (stride `channelCount`);
    /// `count` must not exceed ``samplesUntilFrame``. Returns true when a frame is complete.
    func append(interleaved: UnsafeBufferPointer<Float>, count: Int) -> Bool {
        precondition(count <= untilFrame && count * channelCount <= interleaved.count)
        var index = writeIndex
        for n in 0..<count {
            let source = n * channelCount
            for channel in 0..<channelCount { rings[channel * length + index] = interleaved[source + channel] }
            index += 1
            if index == length { index = 0 }
        }
        writeIndex = index
        written += count
        untilFrame -= count
        return untilFrame == 0
    }

    /// The complete frame of `channel`, oldest sample first, times the window, into `output`
    /// (`length` samples). Call for every channel, then ``advance()``.
    func windowedFrame(channel: Int, into output: UnsafeMutableBufferPointer<Float>) {
        let ring = rings.baseAddress! + channel * length
        let first = length - writeIndex
        window.withUnsafeBufferPointer { window in
            // The oldest samples run from writeIndex to the ring's end, the newest from its start.
            for i in 0..<first { output[i] = ring[writeIndex + i] * window[i] }
            for i in 0..<writeIndex { output[first + i] = ring[i] * window[first + i] }
        }
    }

    /// First sample of the complete frame, in samples of this stream.
    var frameStart: Int { offset + framesHandedOut * hop }

    /// The frame has been taken: the next one is `hop` samples on.
    func advance() {
        framesHandedOut += 1
        untilFrame = hop
    }
}
