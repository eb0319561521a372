import AudioMetering
import CSndFile
import Foundation
import Testing

/// The sound character on signals made in memory (and voices from espeak-ng): what each rule is
/// for. The evaluation on a generated set is scripts/sound-character/.
@Suite("Sound character: what kind of loud")
struct SoundCharacterTests {
    static func labels(_ metered: MeteredAudio) -> [SoundCharacterLabel] { metered.character.windows.map(\.label) }

    @Test func pinkNoiseIsSteadyNoise() throws {
        let result = try meter(
            [TestSignal.pinkNoise(dBFS: -25, count: 20 * 48000, seed: 5)], sampleRate: 48000, format: LevelTests.float32
        )

        #expect(Self.labels(result) == [.steadyNoise, .steadyNoise])
        for window in result.character.windows {
            let f = window.features
            #expect(abs((f.flatnessDB ?? 0) - -2.5) < 0.5)
            #expect((f.modulationDepth ?? 1) < 0.1)
            #expect(abs(f.lowFrequencyExcessDB ?? 99) < 1)
            #expect(f.lowEnergyShare == 0)
            #expect(window.reason.contains("noise-like"))
        }
        #expect(result.character.shares[.steadyNoise] == 1)
        #expect(result.character.shares.count == SoundCharacterLabel.allCases.count)
    }

    /// Brown noise has an LC − LA over 10 dB, yet it is steady noise, not bass-heavy music.
    @Test func brownNoiseIsSteadyNoiseDespiteItsBass() throws {
        var level = 0.0
        let brown = TestSignal.noise(amplitude: 1, count: 12 * 48000, seed: 9).map { x -> Float in
            level = 0.998 * level + Double(x) * 0.02
            return Float(level)
        }

        let result = try meter([brown], sampleRate: 48000, format: LevelTests.float32)

        #expect(Self.labels(result) == [.steadyNoise])
        #expect(result.character.windows[0].features.lcMinusLaDB > 10)
    }

    /// Plucked chords, a new one every beat at 120 bpm, with harmonics; `bass` adds a 55 Hz line
    /// and a kick falling from 100 to 50 Hz on every beat, 10 dB above the chords.
    static func music(seconds: Int, sampleRate: Int, bass: Bool) -> [Float] {
        let chords: [[Double]] = [
            [261.6, 329.6, 392.0], [220.0, 261.6, 329.6], [174.6, 220.0, 261.6], [196.0, 246.9, 293.7],
        ]
        let beat = 0.5
        var out = [Float](repeating: 0, count: seconds * sampleRate)
        for n in out.indices {
            let t = Double(n) / Double(sampleRate)
            let beatIndex = Int(t / beat)
            let sinceBeat = t - Double(beatIndex) * beat
            var value = 0.0
            for (i, f) in chords[(beatIndex / 2) % chords.count].enumerated() {
                let onset = sinceBeat - 0.03 * Double(i)
                guard onset >= 0 else { continue }
                for h in 1...5 { value += 0.1 / Double(h) * sin(2 * .pi * f * Double(h) * t) * exp(-onset / 0.25) }
            }
            if bass {
                value += 0.6 * sin(2 * .pi * 55 * t) * exp(-sinceBeat / 0.4)
                let phase = 2 * .pi * (50 * sinceBeat + 50 * 0.08 * (1 - exp(-sinceBeat / 0.08)))
                value += 0.8 * sin(phase) * exp(-sinceBeat / 0.12)
            }
            out[n] = Float(value * 0.3)
        }
        return out
    }

    @Test func chordsAreMusic() throws {
        let result = try meter([Self.music(seconds: 12, sampleRate: 44100, bass: false)], sampleRate: 44100)

        #expect(Self.labels(result) == [.music])
        let f = result.character.windows[0].features
        #expect((f.flatnessDB ?? 0) < -11)
        #expect(f.lcMinusLaDB < 6)
    }

    @Test func chordsOverA55HertzBassAreBassHeavyMusic() throws {
        let result = try meter([Self.music(seconds: 12, sampleRate: 44100, bass: true)], sampleRate: 44100)

        #expect(Self.labels(result) == [.bassHeavyMusic])
        let f = result.character.windows[0].features
        #expect(f.lcMinusLaDB >= 10)
        #expect((f.lowFrequencyExcessDB ?? 0) >= 4)
        #expect(result.character.windows[0].reason.hasPrefix("LC − LA"))
        #expect((result.character.medianLcMinusLaDB ?? 0) >= 10)
    }

    @Test func quietNoiseIsQuiet() throws {
        let result = try meter(
            [TestSignal.pinkNoise(dBFS: -75, count: 10 * 16000, seed: 2)], sampleRate: 16000, format: LevelTests.float32
        )

        #expect(Self.labels(result) == [.quiet])
        #expect(result.character.windows[0].reason.hasPrefix("LAeq"))
    }

    static let sentences = [
        "The kitchen closes at ten, but the bar stays open until late, so we could still get a table.",
        "Did you see the match last night? I could not believe the second half at all.",
        "My sister is moving to the coast next month, and she wants us all to visit in the summer.",
        "Honestly, the fish was better last time; maybe they changed the cook again.",
        "Tell me about the new job, is it still the same team or did they move you?",
    ]

    /// Voices from espeak-ng, each saying the sentences with pauses, looped to `seconds` from its
    /// own offset, mixed.
    static func babble(voices: [String], seconds: Int) throws -> [Float] {
        let rate = Speech.sampleRate
        var mix = [Float](repeating: 0, count: seconds * rate)
        for (i, voice) in voices.enumerated() {
            var track: [Float] = []
            for (j, sentence) in sentences.enumerated() {
                track += try Speech.say(sentence, voice: voice, wordsPerMinute: 150 + 10 * i, pitch: 40 + 7 * i)
                track += [Float](repeating: 0, count: rate * (3 + (i + j) % 5) / 10)
            }
            let offset = (i * 7919 * rate / 1000) % track.count
            for n in mix.indices {
                mix[n] += 0.7 * track[(n + offset) % track.count] / Float(voices.count).squareRoot()
            }
        }
        return mix
    }

    @Test(arguments: [["en-us+m3"], ["en-us+m3", "en-gb+f2", "de+m1", "en-us+f4"]])
    func voicesAreBabble(voices: [String]) throws {
        try #require(
            Speech.executable != nil, "espeak-ng is not on PATH; install it (make deps: apt-get install espeak-ng)")
        let result = try meter([try Self.babble(voices: voices, seconds: 20)], sampleRate: Speech.sampleRate)

        #expect(Self.labels(result) == [.babble, .babble])
        for window in result.character.windows {
            #expect((window.features.lowFrequencyExcessDB ?? 0) < -5)
            #expect((window.features.modulationDepth ?? 0) > 0.2)
        }
    }

    /// Windows are 10 s from the start; a rest under 5 s joins the last one.
    @Test(arguments: [(25, [0, 10, 20], [10, 10, 5]), (24, [0, 10], [10, 14]), (10, [0], [10]), (4, [0], [4])])
    func windowsAreTenSecondsWithTheRestJoined(seconds: Int, offsets: [Int], lengths: [Int]) throws {
        let result = try meter(
            [TestSignal.pinkNoise(dBFS: -25, count: seconds * 8000, seed: 4)], sampleRate: 8000,
            format: LevelTests.float32)

        #expect(result.character.windows.map(\.offsetSeconds) == offsets)
        #expect(result.character.windows.map(\.seconds) == lengths)
        #expect(abs(result.character.shares.values.reduce(0, +) - 1) < 1e-9)
    }

    @Test func twoSecondsAreTooShortToJudge() throws {
        let result = try meter(
            [TestSignal.pinkNoise(dBFS: -25, count: 2 * 8000, seed: 4)], sampleRate: 8000, format: LevelTests.float32)

        #expect(Self.labels(result) == [.uncertain])
        #expect(result.character.windows[0].features.modulationDepth == nil)
        #expect(result.character.windows[0].reason.contains("too short"))
    }

    @Test func silenceHasNoWindowsAndNoShares() throws {
        let result = try meter([[]], sampleRate: 8000)

        #expect(result.character.windows.isEmpty)
        #expect(result.character.medianLcMinusLaDB == nil)
        #expect(result.character.shares.values.allSatisfy { $0 == 0 })
    }
}
