import AudioTestSupport
import Foundation
import Testing

@testable import AudioClassification

/// The classifier pools its patches' scores per window of the sound character as each window
/// settles: the same means as every patch kept and averaged at the end, with no more than ~16 s
/// of patches held.
@Suite("AudioSet scores pooled per window")
struct WindowPoolingTests {
    @Test(
        "pooled windows equal the mean of their patches' scores, and few patches are ever held",
        .enabled(if: ModelReferenceTests.hasModel, "run scripts/deps.sh"))
    func pooledEqualsPerPatch() throws {
        let model = try #require(ModelReferenceTests.model)
        let sampleRate = 16000
        let seconds = 47
        var state: UInt32 = 7
        let samples: [Float] = (0..<(seconds * sampleRate)).map { n in
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Double(state) / 4_294_967_296 * 0.2 - 0.1
            let t = Double(n) / Double(sampleRate)
            // A tone that comes and goes every 10 s, so that the windows differ.
            let tone = Int(t / 10).isMultiple(of: 2) ? 0.3 * sin(2 * .pi * 440 * t) : 0
            return Float(noise + tone)
        }
        let classifier = try #require(RecordingClassifier(model: model, sampleRate: sampleRate, channelCount: 1))
        var patches: [(index: Int, scores: [Float])] = []
        var mostHeld = 0
        classifier.observePatches { index, scores in
            patches.append((index, scores))
            mostHeld = max(mostHeld, classifier.pendingPatchCount)
        }
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + 3000)
            samples[start..<end].withUnsafeBufferPointer { classifier.consume($0, frameCount: $0.count) }
            start = end
        }
        classifier.finish()

        // The character's windows of 47 s: four of 10 s and the rest of 7 s.
        let windows = [(0, 10), (10, 10), (20, 10), (30, 10), (40, 7)]
        for (first, length) in windows {
            let inside = patches.filter {
                let middle = RecordingClassifier.middleSeconds($0.index)
                return middle >= Double(first) && middle < Double(first + length)
            }
            var sum = [Float](repeating: 0, count: model.classNames.count)
            for patch in inside { for i in sum.indices { sum[i] += patch.scores[i] } }
            let expected = RecordingClassifier.WindowScores(
                scores: sum.map { $0 / Float(inside.count) }, patches: inside.count, groups: model.groups)

            let pooled = classifier.windowScores(firstSecond: first, seconds: length)

            #expect(pooled == expected, "window at \(first) s")
            #expect(inside.count >= 13)
        }
        #expect(patches.count == 96)
        // Windows settle 6 s after their end: at most ~16 s of patches (0.48 s apart) are held.
        #expect(mostHeld <= 36)
        #expect(classifier.pendingPatchCount <= 36)
    }
}
