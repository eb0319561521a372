import Foundation

/// Runs an ``AudioSetModel`` over one recording as it is decoded: interleaved frames in, to mono
/// 16 kHz (``Resampler``), to log-mel patches (``LogMelFrontEnd``), each patch classified as soon
/// as it is complete. Keeps the class scores of every patch (521 floats each: about 2.7 MB for 10
/// minutes), no audio beyond one frame.
///
/// Not `Sendable`: one per recording.
public final class RecordingClassifier {
    public let model: AudioSetModel
    private let resampler: Resampler
    private let frontEnd: LogMelFrontEnd
    private let collected: Collected

    /// Scores of patch i, which starts at ``LogMelFrontEnd/patchStartSeconds(_:)``.
    public var patchScores: [[Float]] { collected.scores }

    private final class Collected {
        var scores: [[Float]] = []
    }

    /// Nil when the rate cannot be brought to 16 kHz (libsamplerate takes ratios 1/256 … 256).
    public init?(model: AudioSetModel, sampleRate: Int, channelCount: Int) {
        guard let resampler = Resampler(inputRate: sampleRate, channelCount: channelCount) else { return nil }
        self.model = model
        self.resampler = resampler
        let collected = Collected()
        self.collected = collected
        frontEnd = LogMelFrontEnd { patch in collected.scores.append(model.scores(patch: patch)) }
    }

    public func consume(_ interleaved: UnsafeBufferPointer<Float>, frameCount: Int) {
        resampler.process(interleaved, frameCount: frameCount) { frontEnd.consume($0) }
    }

    /// At the end of the recording. A last stretch shorter than a patch is not classified.
    public func finish() {
        resampler.finish { frontEnd.consume($0) }
    }

    /// Mean scores of the patches whose middle lies in seconds `first ..< first + count`; nil when
    /// none does.
    public func meanScores(firstSecond: Int, seconds: Int) -> (scores: [Float], patches: Int)? {
        let start = Double(firstSecond)
        let end = Double(firstSecond + seconds)
        var sum = [Float](repeating: 0, count: model.classNames.count)
        var count = 0
        for (index, scores) in collected.scores.enumerated() {
            let middle = LogMelFrontEnd.patchStartSeconds(index) + LogMelFrontEnd.patchSeconds / 2
            guard middle >= start && middle < end else { continue }
            for i in sum.indices { sum[i] += scores[i] }
            count += 1
        }
        guard count > 0 else { return nil }
        return (sum.map { $0 / Float(count) }, count)
    }
}
