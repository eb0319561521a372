import AudioTestSupport
import Foundation
import LoudnessCore
import Testing

@testable import AudioClassification

@Suite("AudioSet classes to HearClear's, loading, resampling")
struct MappingAndLoadingTests {
    static var model: AudioSetModel? { ModelReferenceTests.model }

    @Test(
        "every class the table names is one of YAMNet's (but the few AudioSet classes it lacks), and the groups fall where they should",
        .enabled(if: ModelReferenceTests.hasModel, "run scripts/deps.sh"))
    func tableNamesExist() throws {
        let model = try #require(Self.model)
        // AudioSet classes a phone's model may name that YAMNet's 521 do not have; any other
        // name missing here is a typo in the table.
        let audioSetOnly: Set = [
            "Male speech, man speaking", "Female speech, woman speaking", "Lounge music", "Trap music", "Grime music",
        ]
        let missing = Set(SoundLabelMapping.audioSet.keys).subtracting(model.classNames)
        #expect(missing.isSubset(of: audioSetOnly), "not YAMNet classes: \(missing.subtracting(audioSetOnly).sorted())")
        func group(_ name: String) -> AudioSetGroup? { model.groups[model.classNames.firstIndex(of: name)!] }
        #expect(group("Speech") == .voices)
        #expect(group("Hubbub, speech noise, speech babble") == .voices)
        #expect(group("Music") == .music)
        #expect(group("Jazz") == .music)
        #expect(group("Singing") == .music)
        #expect(group("Bass drum") == .bass)
        #expect(group("Techno") == .bass)
        #expect(group("Air conditioning") == .steadyNoise)
        #expect(group("Traffic noise, roadway noise") == .steadyNoise)
        #expect(group("Silence") == .silence)
        #expect(group("Dog") == nil)
        #expect(group("Door") == nil)
        #expect(model.groups.compactMap { $0 }.count > 200)
    }

    @Test("a file that is not an ONNX model, and a folder without one, are refused with the reason")
    func refusesWhatIsNotAModel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect {
            try AudioSetModel(folder: folder)
        } throws: { error in
            if case .unreadable = error as? ONNXModelError { true } else { false }
        }
        try Data([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]).write(to: folder.appendingPathComponent("model.onnx"))
        #expect {
            try AudioSetModel(folder: folder)
        } throws: { error in
            if case .malformed = error as? ONNXModelError { true } else { false }
        }
    }

    @Test("44.1 kHz stereo to 16 kHz mono keeps a 1 kHz tone's frequency and level")
    func resamplesATone() throws {
        let rate = 44_100
        let seconds = 3
        var interleaved: [Float] = []
        for n in 0..<(rate * seconds) {
            let value = Float(0.5 * sin(2 * Double.pi * 1000 * Double(n) / Double(rate)))
            interleaved += [value, value]
        }
        let resampler = try #require(Resampler(inputRate: rate, channelCount: 2))
        var output: [Float] = []
        interleaved.withUnsafeBufferPointer { all in
            var frame = 0
            while frame < rate * seconds {
                let count = min(3000, rate * seconds - frame)
                resampler.process(
                    UnsafeBufferPointer(rebasing: all[(frame * 2)..<((frame + count) * 2)]), frameCount: count
                ) {
                    output += $0
                }
                frame += count
            }
        }
        resampler.finish { output += $0 }
        #expect(abs(output.count - 16_000 * seconds) <= 2, "\(output.count) samples")
        // The middle second, away from the filter's start: RMS of a 0.5 sine is 0.5/√2.
        let middle = output[16_000..<32_000]
        let rms = (middle.reduce(0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
        #expect(abs(20 * log10(rms / (0.5 / 2.0.squareRoot()))) < 0.05, "RMS \(rms)")
        var crossings = 0
        for i in middle.indices.dropFirst() where (middle[i - 1] < 0) != (middle[i] < 0) { crossings += 1 }
        #expect(abs(crossings - 2000) <= 2, "\(crossings) zero crossings in one second")
    }
}
