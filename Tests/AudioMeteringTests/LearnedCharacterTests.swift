import AudioClassification
import AudioMetering
import AudioTestSupport
import Foundation
import Testing

/// The sound character labelled by the AudioSet model (models/yamnet, fetched by scripts/deps.sh)
/// on signals made in memory, the decision list on scores given by hand, and the fallback to the
/// spectra rules without a model. The evaluation on real recordings is scripts/sound-character/.
@Suite("Sound character by the AudioSet model")
struct LearnedCharacterTests {
    static let folder = URL(fileURLWithPath: ProjectPython.repositoryRoot + "/" + AudioSetModel.defaultFolder)
    static let model: AudioSetModel? = try? AudioSetModel(folder: folder)
    static var hasModel: Bool { model != nil }

    static func measure(_ samples: [Float], sampleRate: Int, model: AudioSetModel?) throws -> MeteredAudio {
        let bytes = try AudioEncoder.encode(
            samples, channelCount: 1, sampleRate: sampleRate, format: LevelTests.float32)
        return try AudioMeter.measure(bytes, model: model)
    }

    static func group(_ name: String) -> AudioSetGroup? {
        guard let model, let index = model.classNames.firstIndex(of: name) else { return nil }
        return model.groups[index]
    }

    @Test(
        "pink and brown noise are steady noise, by the model's noise classes",
        .enabled(if: hasModel, "run scripts/deps.sh"))
    func noiseIsSteadyNoise() throws {
        var level = 0.0
        let brown = TestSignal.noise(amplitude: 1, count: 12 * 48000, seed: 9).map { x -> Float in
            level = 0.998 * level + Double(x) * 0.02
            return Float(level)
        }
        for signal in [TestSignal.pinkNoise(dBFS: -25, count: 20 * 48000, seed: 5), brown] {
            let result = try Self.measure(signal, sampleRate: 48000, model: Self.model)
            #expect(result.character.classifier == AudioSetModel.name)
            for window in result.character.windows {
                #expect(window.label == .steadyNoise, "\(window.reason)")
                #expect(window.topClasses.count == 5)
                #expect(Self.group(window.topClasses[0].name) == .steadyNoise, "\(window.topClasses)")
                #expect(window.reason.hasPrefix("steady noise leads"))
            }
        }
    }

    @Test(
        "voices from espeak-ng are babble, with Speech among the top classes",
        .enabled(if: hasModel, "run scripts/deps.sh"))
    func voicesAreBabble() throws {
        try #require(Speech.executable != nil, "espeak-ng is not on PATH (make deps installs it)")
        let voices = try SoundCharacterTests.babble(voices: ["en-us+m3", "en-gb+f2"], seconds: 20)
        let result = try Self.measure(voices, sampleRate: Speech.sampleRate, model: Self.model)
        #expect(result.character.windows.map(\.label) == [.babble, .babble])
        for window in result.character.windows {
            #expect(window.topClasses.contains { $0.name == "Speech" && $0.score > 0.3 }, "\(window.topClasses)")
        }
    }

    @Test("under −60 dBFS a window is quiet whatever the model hears", .enabled(if: hasModel, "run scripts/deps.sh"))
    func faintIsQuiet() throws {
        let result = try Self.measure(
            TestSignal.pinkNoise(dBFS: -75, count: 12 * 16000, seed: 3), sampleRate: 16000, model: Self.model)
        #expect(result.character.windows.map(\.label) == [.quiet])
        #expect(result.character.windows[0].reason.hasPrefix("LAeq"))
    }

    @Test("without the model the spectra rules label the windows, and say so")
    func fallsBackToRules() throws {
        let result = try Self.measure(
            TestSignal.pinkNoise(dBFS: -25, count: 12 * 48000, seed: 5), sampleRate: 48000, model: nil)
        #expect(result.character.classifier == SoundCharacter.rulesName)
        #expect(result.character.windows.map(\.label) == [.steadyNoise])
        #expect(result.character.windows[0].topClasses.isEmpty)
        #expect(result.character.windows[0].reason.contains("noise-like"))
    }

    @Test("a recording shorter than one patch is too short for the model")
    func tooShortForAPatch() throws {
        try #require(Self.hasModel, "run scripts/deps.sh")
        let result = try Self.measure(
            TestSignal.pinkNoise(dBFS: -25, count: 14_000, seed: 5), sampleRate: 16000, model: Self.model)
        // 0.875 s: under the 0.975 s of a patch, but long enough for the meter's one second.
        #expect(result.character.windows.map(\.label) == [.uncertain])
        #expect(result.character.windows[0].reason.contains("too short for the model"))
    }

    @Test("the decision list, on scores given by hand")
    func decisionList() {
        let rules = LearnedCharacterRules()
        let loud = SoundFeatures(
            laeqDBFS: -20, lcMinusLaDB: 4, lowFrequencyExcessDB: -3, flatnessDB: -8, fluxDB: 3, lowEnergyShare: 0.2,
            modulationRatioDB: 0, modulationDepth: 0.5)
        var bassy = loud
        bassy.lcMinusLaDB = 14
        bassy.lowFrequencyExcessDB = 12
        var faint = loud
        faint.laeqDBFS = -70
        func label(_ f: SoundFeatures, _ v: Float, _ m: Float, _ b: Float, _ n: Float, _ s: Float)
            -> SoundCharacterLabel
        {
            rules.classify(f, .init(voices: v, music: m, bass: b, steadyNoise: n, silence: s)).label
        }
        // Weights in force: music × 0.5, steady noise × 3; at least 0.05; bass classes from 0.5.
        #expect(label(faint, 0.9, 0, 0, 0, 0) == .quiet)
        #expect(label(loud, 0.1, 0.1, 0, 0.1, 0.5) == .quiet)  // silence 0.5 over noise 0.3
        #expect(label(loud, 0.03, 0.05, 0, 0.01, 0) == .uncertain)  // best 0.03 < 0.05
        #expect(label(loud, 0.6, 0.5, 0, 0.1, 0) == .babble)  // 0.6 over 0.25 and 0.3
        #expect(label(loud, 0.5, 0.5, 0, 0.2, 0) == .steadyNoise)  // 0.6 over 0.5
        #expect(label(loud, 0.2, 0.9, 0.1, 0.05, 0) == .music)  // 0.45 over 0.2 and 0.15
        #expect(label(loud, 0.2, 0.9, 0.6, 0.05, 0) == .bassHeavyMusic)
        #expect(label(bassy, 0.2, 0.9, 0.0, 0.05, 0) == .bassHeavyMusic)
    }
}
