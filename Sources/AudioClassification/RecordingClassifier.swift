import Foundation

/// Runs an ``AudioSetModel`` over one recording as it is decoded: interleaved frames in, to mono
/// 16 kHz (``Resampler``), to log-mel patches (``LogMelFrontEnd``), each patch classified as soon
/// as it is complete.
///
/// Scores are pooled per window of the sound character (10 s from the start; the last window
/// takes a rest under 5 s, see `CharacterWindowing` in AudioMetering) as each window settles: a
/// window is settled once a patch's middle lies 6 s past its end (the recording then lasts at
/// least 5 s beyond it, so the window is not the last one and keeps its 10 s). A settled window
/// keeps only what labels it (``WindowScores``: its group scores and best classes, about 100
/// bytes); the patches not yet settled (at most ~16 s of them, 34 × 521 floats, about 70 kB) are
/// kept one by one. Memory does not grow with the recording beyond the ~100 bytes a window
/// (before: 521 floats a patch, about 375 MB for 24 hours). No audio is kept beyond one frame.
///
/// Not `Sendable`: one per recording.
public final class RecordingClassifier {
    public let model: AudioSetModel
    private let resampler: Resampler
    private let frontEnd: LogMelFrontEnd
    private let collected: Collected

    /// The character's windows are this long from the start (AudioMetering's `CharacterWindowing`
    /// takes its length from here).
    public static let windowSeconds = 10
    /// A window is settled once a patch's middle lies this far past its end: the shortest rest that
    /// stands as its own window (5 s) and a second of margin.
    static let settleAfterSeconds = 6.0
    /// Classes kept per window, best first.
    public static let topClassCount = 5

    /// What labels one window: the mean over its patches of every class's probability, reduced to
    /// the best of each group and the best classes.
    public struct WindowScores: Sendable, Equatable {
        public struct Class: Sendable, Equatable {
            /// The model's output index (``AudioSetModel/classNames``).
            public var index: Int
            public var score: Float
        }

        /// Patches whose middle lies in the window.
        public var patches: Int
        /// Per group, its best class's mean probability (0 for a group without classes).
        public var groupBest: [AudioSetGroup: Float]
        /// The ``RecordingClassifier/topClassCount`` best classes, best first.
        public var top: [Class]

        /// The mean scores `scores` of `patches` patches, reduced.
        public init(scores: [Float], patches: Int, groups: [AudioSetGroup?]) {
            self.patches = patches
            var best = Dictionary(uniqueKeysWithValues: AudioSetGroup.allCases.map { ($0, Float(0)) })
            for (score, group) in zip(scores, groups) {
                guard let group else { continue }
                best[group] = max(best[group] ?? 0, score)
            }
            groupBest = best
            top = scores.indices.sorted { scores[$0] > scores[$1] }.prefix(RecordingClassifier.topClassCount).map {
                Class(index: $0, score: scores[$0])
            }
        }
    }

    private final class Collected {
        /// Patches not yet pooled into a settled window: index and scores.
        var pending: [(index: Int, scores: [Float])] = []
        /// Settled windows by first second (each 10 s long).
        var settled: [Int: WindowScores] = [:]
        /// First second of the next window to settle.
        var nextWindow = 0
        /// Sees every patch's scores (tests).
        var observer: ((Int, [Float]) -> Void)?
    }

    /// Nil when the rate cannot be brought to 16 kHz (libsamplerate takes ratios 1/256 … 256).
    public init?(model: AudioSetModel, sampleRate: Int, channelCount: Int) {
        guard let resampler = Resampler(inputRate: sampleRate, channelCount: channelCount) else { return nil }
        self.model = model
        self.resampler = resampler
        let collected = Collected()
        self.collected = collected
        var patchIndex = 0
        frontEnd = LogMelFrontEnd { patch in
            let scores = model.scores(patch: patch)
            collected.observer?(patchIndex, scores)
            collected.pending.append((patchIndex, scores))
            RecordingClassifier.settle(
                collected, upTo: RecordingClassifier.middleSeconds(patchIndex), groups: model.groups)
            patchIndex += 1
        }
    }

    /// Called with each patch's index and scores as it is classified (for tests).
    func observePatches(_ observer: @escaping (Int, [Float]) -> Void) {
        collected.observer = observer
    }

    /// Patches held one by one, not yet pooled.
    var pendingPatchCount: Int { collected.pending.count }

    public func consume(_ interleaved: UnsafeBufferPointer<Float>, frameCount: Int) {
        resampler.process(interleaved, frameCount: frameCount) { frontEnd.consume($0) }
    }

    /// At the end of the recording. A last stretch shorter than a patch is not classified.
    public func finish() {
        resampler.finish { frontEnd.consume($0) }
    }

    /// The middle of patch `index`, seconds from the start.
    static func middleSeconds(_ index: Int) -> Double {
        LogMelFrontEnd.patchStartSeconds(index) + LogMelFrontEnd.patchSeconds / 2
    }

    /// Pools the windows whose end lies ``settleAfterSeconds`` or more before `middle`.
    private static func settle(_ collected: Collected, upTo middle: Double, groups: [AudioSetGroup?]) {
        while Double(collected.nextWindow + windowSeconds) + settleAfterSeconds <= middle {
            let first = collected.nextWindow
            let end = Double(first + windowSeconds)
            let inside = collected.pending.prefix { middleSeconds($0.index) < end }
            if let pooled = pool(inside.filter { middleSeconds($0.index) >= Double(first) }, groups: groups) {
                collected.settled[first] = pooled
            }
            collected.pending.removeFirst(inside.count)
            collected.nextWindow += windowSeconds
        }
    }

    /// The mean of the patches' scores (summed in patch order), reduced; nil without patches.
    private static func pool(
        _ patches: some Collection<(index: Int, scores: [Float])>, groups: [AudioSetGroup?]
    ) -> WindowScores? {
        guard let first = patches.first else { return nil }
        var sum = [Float](repeating: 0, count: first.scores.count)
        for patch in patches {
            for i in sum.indices { sum[i] += patch.scores[i] }
        }
        return WindowScores(scores: sum.map { $0 / Float(patches.count) }, patches: patches.count, groups: groups)
    }

    /// The pooled scores of the patches whose middle lies in seconds `first ..< first + count`; nil
    /// when none does. A settled window answers from its pooled scores; the windows after it (the
    /// last ones) from the patches still held.
    public func windowScores(firstSecond: Int, seconds: Int) -> WindowScores? {
        if firstSecond < collected.nextWindow {
            return seconds == Self.windowSeconds && firstSecond.isMultiple(of: Self.windowSeconds)
                ? collected.settled[firstSecond] : nil
        }
        let start = Double(firstSecond)
        let end = Double(firstSecond + seconds)
        return Self.pool(
            collected.pending.filter { Self.middleSeconds($0.index) >= start && Self.middleSeconds($0.index) < end },
            groups: model.groups)
    }
}
