import Foundation
import LoudnessCore
import Testing

/// The phone's own classes (docs/ARCHITECTURE.md, "The phone's own classes"): the one table from
/// AudioSet and SoundAnalysis labels to HearClear's classes, the rule that classes a window from
/// its top labels, and a piece's seconds when phone classes and spectra rules meet.
@Suite("The phone's own classes")
struct PhoneClassesTests {
    @Test(
        "AudioSet display names map to HearClear's classes",
        arguments: [
            ("Speech", SoundClass.babble), ("Conversation", .babble), ("Chatter", .babble),
            ("Hubbub, speech noise, speech babble", .babble), ("Crowd", .babble), ("Music", .music),
            ("Pop music", .music), ("Bass drum", .bassHeavyMusic), ("Electronic dance music", .bassHeavyMusic),
            ("Techno", .bassHeavyMusic), ("Dubstep", .bassHeavyMusic), ("Hip hop music", .bassHeavyMusic),
            ("Wind", .steadyNoise), ("Engine", .steadyNoise), ("Vehicle", .steadyNoise),
            ("Traffic noise, roadway noise", .steadyNoise), ("Air conditioning", .steadyNoise),
            ("Mechanical fan", .steadyNoise), ("White noise", .steadyNoise), ("Pink noise", .steadyNoise),
            ("Rain", .steadyNoise), ("Silence", .quiet),
        ])
    func audioSet(name: String, expected: SoundClass) {
        #expect(SoundLabelMapping.soundClass(forAudioSet: name) == expected)
        #expect(SoundLabelMapping.soundClass(for: name, in: .audioSet) == expected)
    }

    @Test(
        "SoundAnalysis identifiers map to HearClear's classes",
        arguments: [
            ("speech", SoundClass.babble), ("crowd", .babble), ("babble", .babble), ("music", .music),
            ("bass_drum", .bassHeavyMusic), ("wind", .steadyNoise), ("engine", .steadyNoise),
            ("air_conditioner", .steadyNoise), ("fan", .steadyNoise), ("silence", .quiet),
        ])
    func soundAnalysis(identifier: String, expected: SoundClass) {
        #expect(SoundLabelMapping.soundClass(forSoundAnalysis: identifier) == expected)
    }

    @Test("unknown labels, another vocabulary's names and other cases are not in the table")
    func unknown() {
        for name in ["Dog", "Bark", "Typing", "", "speech", "SPEECH"] {
            #expect(SoundLabelMapping.soundClass(forAudioSet: name) == nil, "\(name)")
        }
        for identifier in ["dog_bark", "Speech", "Bass drum", "typing"] {
            #expect(SoundLabelMapping.soundClass(forSoundAnalysis: identifier) == nil, "\(identifier)")
        }
        // No label maps to `uncertain`: that is what a window gets, never a label.
        #expect(!SoundLabelMapping.audioSet.values.contains(.uncertain))
        #expect(!SoundLabelMapping.soundAnalysis.values.contains(.uncertain))
        // Every class but `uncertain` is reachable from both vocabularies.
        for soundClass in SoundClass.allCases where soundClass != .uncertain {
            #expect(SoundLabelMapping.audioSet.values.contains(soundClass))
            #expect(SoundLabelMapping.soundAnalysis.values.contains(soundClass))
        }
    }

    @Test(
        "a window's class: confidences summed per class, the best at 0.3 or more, bass when music wins",
        arguments: [
            // One clear label.
            ([("Speech", 0.83)], SoundClass.babble),
            // Summed: 0.2 + 0.15 of voices beat 0.3 of music.
            ([("Speech", 0.2), ("Music", 0.3), ("Chatter", 0.15)], .babble),
            // Under 0.3 for every class: uncertain.
            ([("Speech", 0.25), ("Music", 0.2)], .uncertain),
            // A tie at the top: uncertain.
            ([("Speech", 0.4), ("Music", 0.4)], .uncertain),
            // Music wins with 0.5 + 0.2 of bass; the bass labels sum 0.2: bass-heavy.
            ([("Music", 0.5), ("Bass drum", 0.2), ("Speech", 0.6)], .bassHeavyMusic),
            // Music with bass at 0.15 only: music.
            ([("Music", 0.7), ("Bass drum", 0.15)], .music),
            // Bass labels alone carry music (0.35 ≥ 0.3) and are bass (≥ 0.2).
            ([("Techno", 0.35)], .bassHeavyMusic),
            // Unknown labels are ignored: the dog's 0.9 does not count.
            ([("Dog", 0.9), ("Air conditioning", 0.31)], .steadyNoise),
            ([("Dog", 0.9)], .uncertain),
            ([("Silence", 0.95)], .quiet),
        ] as [([(String, Double)], SoundClass)])
    func windowClass(top: [(String, Double)], expected: SoundClass) {
        #expect(
            SoundLabelMapping.windowClass(top.map { (label: $0.0, confidence: $0.1) }, vocabulary: .audioSet)
                == expected)
    }

    @Test("SoundAnalysis windows are classed by their identifiers")
    func soundAnalysisWindow() {
        let top = [(label: "music", confidence: 0.6), (label: "bass_drum", confidence: 0.25)]
        #expect(SoundLabelMapping.windowClass(top, vocabulary: .soundAnalysis) == .bassHeavyMusic)
        #expect(SoundLabelMapping.windowClass(top, vocabulary: .audioSet) == .uncertain, "other names: unknown")
    }

    @Test("the window holding each second: ascending, a second between windows in none")
    func classesAt() throws {
        let windows = try #require(
            PhoneClassWindows(offsetsSeconds: [0, 10, 25], seconds: [10, 5, 10], classes: [.babble, .music, .quiet]))
        let classes = windows.classes(at: [0, 9, 10, 14, 15, 24, 25, 34, 35])
        #expect(classes == [.babble, .babble, .music, .music, nil, nil, .quiet, .quiet, nil])
        #expect(PhoneClassWindows(offsetsSeconds: [0], seconds: [1, 2], classes: [.babble]) == nil)
        #expect(PhoneClassWindows(offsetsSeconds: [0], seconds: [1], classIndexes: [6]) == nil)
    }

    /// 30 seconds at −40 dBFS.
    static func samples(count: Int = 30) throws -> SessionSamples {
        try SessionSamples(
            offsetsSeconds: (0..<count).map(Double.init), averageDBFS: Array(repeating: -40, count: count),
            peakDBFS: Array(repeating: -30, count: count))
    }

    @Test("phone classes alone: every kept second the phone's, uncertain where no window holds it")
    func phoneOnly() throws {
        let samples = try Self.samples()
        let phone = try #require(
            PhoneClassWindows(offsetsSeconds: [0, 10], seconds: [10, 10], classes: [.babble, .uncertain]))
        // Kept: 0…24 less 5 and 6 (23 seconds). Phone: 0–9 babble (8 kept), 10–19 uncertain (10), 20–24 none (5).
        let members = (0..<25).filter { $0 != 5 && $0 != 6 }
        let piece = PieceCharacter(members: members, samples: samples, spectra: nil, phoneClasses: phone)
        #expect(piece.classSeconds == [8, 0, 0, 0, 0, 15])
        #expect(piece.phoneSeconds == 23 && piece.seconds == 23)
        #expect(piece.lcMinusLaDdB.isEmpty)
    }

    @Test("phone classes and spectra: the phone's sure class wins a second, else the rules' label")
    func both() throws {
        let samples = try Self.samples()
        // LCeq only: the rules call every window uncertain ("no bands"); LC − LA 3 dB.
        let spectra = try SpectralSamples(
            count: 30, lceqDBFS: Array(repeating: -37, count: 30), bandIndexes: [], bandsDBFS: [])
        let phone = try #require(
            PhoneClassWindows(offsetsSeconds: [0, 10], seconds: [10, 10], classes: [.steadyNoise, .uncertain]))
        let piece = PieceCharacter(members: Array(0..<30), samples: samples, spectra: spectra, phoneClasses: phone)
        // 0–9 the phone's steady noise; 10–19 the phone unsure: the rules' uncertain; 20–29 no window: the rules'.
        #expect(piece.classSeconds == [0, 0, 0, 10, 0, 20])
        #expect(piece.phoneSeconds == 10)
        #expect(piece.lcMinusLaDdB == Array(repeating: 30, count: 30), "LC − LA from the spectra")
        let rulesOnly = PieceCharacter(members: Array(0..<30), samples: samples, spectra: spectra)
        #expect(rulesOnly.phoneSeconds == 0 && rulesOnly.classSeconds == [0, 0, 0, 0, 0, 30])
    }

    @Test("a cell's basis: phone classes, spectra rules or both, from the pooled phone seconds")
    func basis() throws {
        let levels = [Int16](repeating: -400, count: 40)
        func piece(phone: Int) -> (piece: PieceCharacter, modelOffsetDB: Double) {
            (
                PieceCharacter(
                    classSeconds: [40, 0, 0, 0, 0, 0], levelsDdB: levels, lcMinusLaDdB: [], phoneSeconds: phone), 0
            )
        }
        #expect(try #require(CellCharacter.pooled([piece(phone: 0), piece(phone: 0)])).basis == .spectraRules)
        #expect(try #require(CellCharacter.pooled([piece(phone: 40), piece(phone: 40)])).basis == .phoneClasses)
        let mixed = try #require(CellCharacter.pooled([piece(phone: 40), piece(phone: 0)]))
        #expect(mixed.basis == .both && mixed.phoneSeconds == 40 && mixed.seconds == 80)
    }
}
