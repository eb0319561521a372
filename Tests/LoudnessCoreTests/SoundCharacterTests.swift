import Foundation
import LoudnessCore
import Testing

/// The sound character from per-second data (docs/ARCHITECTURE.md, "Sound character"): windows,
/// features by hand, the rules, the cleaning mask, and a cell pooled from its pieces.
@Suite("Sound character per second")
struct SoundCharacterTests {
    static let friday21 = LocalHour(weekday: 5, hour: 21)

    /// `count` seconds with `average`, no gaps.
    static func samples(_ averages: [Double]) throws -> SessionSamples {
        try SessionSamples(
            offsetsSeconds: averages.indices.map(Double.init), averageDBFS: averages, peakDBFS: averages.map { $0 + 10 }
        )
    }

    @Test(
        "windows of 10 kept seconds, a rest under 5 joining the last",
        arguments: [
            (0, []), (1, [1]), (4, [4]), (10, [10]), (14, [14]), (15, [10, 5]), (24, [10, 14]), (25, [10, 10, 5]),
            (37, [10, 10, 10, 7]),
        ])
    func windowLayout(count: Int, lengths: [Int]) {
        #expect(SecondCharacter.windowRanges(count: count).map(\.count) == lengths)
    }

    @Test("features by hand: LC − LA, low-frequency excess, flatness, shape and level flux")
    func featuresByHand() throws {
        // Bands 100, 125 Hz (low), 250, 315, 400 Hz (one flatness octave), 1 kHz (reference).
        let bands = [3, 4, 7, 8, 9, 13]
        let averages = [-40.0, -41.0, -38.0]
        let lceq = [-30.0, -31.0, -28.0]
        let levels: [[Double]] = [
            [-50, -50, -30, -40, -40, -60],
            [-51, -51, -31, -41, -41, -61],  // every band 1 dB down: the shape holds
            [-45, -51, -31, -41, -41, -61],  // 100 Hz 6 dB up: the shape moves
        ]
        let spectra = try SpectralSamples(
            count: 3, lceqDBFS: lceq, bandIndexes: bands, bandsDBFS: levels.flatMap { $0 })
        let f = SecondCharacter.features(of: [0, 1, 2], samples: try Self.samples(averages), spectra: spectra)

        #expect(f.seconds == 3 && f.bands == 6)
        // python3: 10*log10(mean(10**(x/10) for x in (-40, -41, -38))) == -39.48304604390742
        #expect(abs(f.laeqDBFS - -39.48304604390742) < 1e-9)
        // LCeq of -30, -31, -28 is exactly 10 dB above: LC − LA = 10.
        #expect(abs(f.lcMinusLaDB! - 10) < 1e-9)
        // Mean power of 100/125 Hz over 1 kHz: (2·1e-5 + 2·10**-5.1 + 10**-4.5 + 10**-5.1) / 6 over
        // (1e-6 + 10**-6.1 + 10**-6.1) / 3; python3: 10*log10(...) == 10.3545...
        let low = (2 * 1e-5 + 3 * pow(10, -5.1) + pow(10, -4.5)) / 6
        let reference = (1e-6 + 2 * pow(10, -6.1)) / 3
        #expect(abs(f.lowFrequencyExcessDB! - 10 * log10(low / reference)) < 1e-9)
        // Every second's octave 250–400 Hz is (0, −10, −10) dB from its loudest band: mean level
        // −6.667, mean power 0.4 (−3.979 dB), flatness −2.688 dB.
        #expect(abs(f.flatnessDB! - (-20.0 / 3 - 10 * log10(0.4))) < 1e-9)
        // Shape: 0 from second 0 to 1; from 1 to 2, changes (6, 0, …, 0): mean 1, RMS of
        // (5, −1, −1, −1, −1, −1) = √(30/6) = √5. Mean over the two pairs: √5 / 2.
        #expect(abs(f.shapeFluxDB! - 5.0.squareRoot() / 2) < 1e-9)
        // Level: |−41 − −40| = 1, |−38 − −41| = 3: mean 2.
        #expect(abs(f.levelFluxDB! - 2) < 1e-9)
    }

    @Test("no shape or level flux across a gap of more than a second")
    func gapsBreakFlux() throws {
        let samples = try SessionSamples(
            offsetsSeconds: [0, 5], averageDBFS: [-40, -30], peakDBFS: [-30, -20])
        let spectra = try SpectralSamples(
            count: 2, lceqDBFS: nil, bandIndexes: [3, 13], bandsDBFS: [-50, -60, -40, -70])
        let f = SecondCharacter.features(of: [0, 1], samples: samples, spectra: spectra)
        #expect(f.shapeFluxDB == nil && f.levelFluxDB == nil && f.lcMinusLaDB == nil)
    }

    static func features(
        laeq: Double = -30, bands: Int = 12, lcMinusLa: Double? = 4, excess: Double? = 0, flatness: Double? = -0.5,
        shape: Double? = 3
    ) -> SecondFeatures {
        SecondFeatures(
            seconds: 10, bands: bands, laeqDBFS: laeq, lcMinusLaDB: lcMinusLa, lowFrequencyExcessDB: excess,
            flatnessDB: flatness, shapeFluxDB: shape, levelFluxDB: 1)
    }

    @Test(
        "the rules, in order",
        arguments: [
            (features(laeq: -60.1, shape: 0), SoundClass.quiet),
            (features(bands: 0, lcMinusLa: 14, excess: nil, flatness: nil, shape: nil), .uncertain),
            (features(lcMinusLa: 14, excess: 12, shape: 1.2), .steadyNoise),
            (features(excess: nil), .uncertain),
            (features(lcMinusLa: 10, excess: 4), .bassHeavyMusic),
            (features(lcMinusLa: 9.9, excess: 12), .music),  // not bass with LCeq; music by LC − LA 9.9 ≥ 3
            (features(lcMinusLa: nil, excess: 8), .bassHeavyMusic),
            (features(lcMinusLa: nil, excess: 7.9, flatness: -0.5), .uncertain),
            (features(lcMinusLa: 3, excess: -5, flatness: -1.5), .babble),
            (features(lcMinusLa: 3.1, excess: -5, flatness: -0.5), .uncertain),
            (features(lcMinusLa: 1, excess: -5, flatness: -1.6), .uncertain),
            (features(lcMinusLa: nil, excess: -9, flatness: nil), .babble),
            (features(lcMinusLa: 1, excess: -2, flatness: -1), .music),
            (features(lcMinusLa: 3, excess: -2, flatness: -0.5), .music),
            (features(lcMinusLa: 2.9, excess: -2, flatness: -0.9), .uncertain),
            (features(lcMinusLa: 6, excess: -2.1, flatness: -3), .uncertain),
        ])
    func rules(_ features: SecondFeatures, _ label: SoundClass) {
        let (got, reason) = SecondCharacterRules().classify(features)
        #expect(got == label, "\(reason)")
        #expect(!reason.isEmpty)
    }

    @Test("labels keep the meter's raw values and stored order")
    func labels() {
        #expect(
            SoundClass.allCases.map(\.rawValue) == [
                "babble", "music", "bass_heavy_music", "steady_noise", "quiet", "uncertain",
            ])
    }

    /// 40 seconds: a wobble around −45 dBFS with a bang at second 20, LCeq 3 dB above, six bands
    /// at a fixed shape (steady) except at the bang.
    static func bangedCheckin() throws -> (SessionSamples, SpectralSamples) {
        let wobble = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]
        var averages = (0..<40).map { -45 + wobble[$0 % 7] }
        averages[20] = -10
        var lceq = averages.map { $0 + 3 }
        lceq[20] = 30
        let shape: [Double] = [-5, -6, -12, -13, -14, -20]
        var bands = averages.flatMap { average in shape.map { average + $0 } }
        for position in 0..<6 { bands[20 * 6 + position] = position < 3 ? 10 : -100 }  // all bass
        return (
            try samples(averages),
            try SpectralSamples(count: 40, lceqDBFS: lceq, bandIndexes: [3, 4, 5, 10, 13, 16], bandsDBFS: bands)
        )
    }

    @Test("a piece's character uses only the seconds cleaning kept")
    func mask() throws {
        let (samples, spectra) = try Self.bangedCheckin()
        let kept = SessionCleaner().clean(samples).kept
        #expect(kept.indices.filter { !kept[$0] } == [20, 21, 22], "the bang and the two seconds after it")

        let hours = try HourStatistics.perHour(
            samples: samples, kept: kept, localHours: Array(repeating: Self.friday21, count: 40), spectra: spectra)
        let character = try #require(hours.first?.character)
        #expect(character.seconds == 37)
        #expect(character.classSeconds == [0, 0, 0, 37, 0, 0], "steady in every window: the bang is not there")
        #expect(!character.levelsDdB.contains(-100) && character.levelsDdB.max()! == -446)
        #expect(character.lcMinusLaDdB == Array(repeating: 30, count: 37))
        #expect(character.levelsDdB == character.levelsDdB.sorted())

        // Without the mask the bang's window would not be steady.
        let all = SecondCharacter.windows(of: Array(0..<40), samples: samples, spectra: spectra)
        #expect(all.map(\.label) == [.steadyNoise, .steadyNoise, .bassHeavyMusic, .steadyNoise])
    }

    @Test("a cell pools its pieces: shares, median LC − LA, LA90 with each device's offset")
    func pooled() throws {
        let a = PieceCharacter(
            classSeconds: [10, 0, 0, 30, 0, 0], levelsDdB: (0..<40).map { Int16(-450 + $0 % 10) }.sorted(),
            lcMinusLaDdB: (0..<40).map { Int16(20 + $0 % 5) }.sorted())
        let b = PieceCharacter(
            classSeconds: [0, 0, 25, 0, 0, 5], levelsDdB: (0..<30).map { Int16(-400 - $0 % 6) }.sorted(),
            lcMinusLaDdB: (0..<30).map { Int16(120 + $0 % 3) }.sorted())
        let cell = try #require(CellCharacter.pooled([(a, 0), (b, 2)]))

        #expect(cell.seconds == 70 && cell.checkins == 2)
        #expect(cell.classSeconds == [10, 0, 25, 30, 0, 5])
        #expect(abs(cell.share(of: .steadyNoise) - 30.0 / 70) < 1e-12)
        // python3: a = [-45.0 + (i % 10) / 10 for i in range(40)]; b = [-40.0 - (i % 6) / 10 + 2 for i in range(30)]
        //   statistics.quantiles(a + b, n=10, method='inclusive')[0] == -44.9 (the 10th percentile)
        #expect(abs(cell.la90DBFS - -44.9) < 1e-9)
        // python3: statistics.median([2.0 + (i % 5) / 10 for i in range(40)] + [12.0 + (i % 3) / 10 for i in range(30)])
        //   == 2.4 (the 35th and 36th of 70 values are both 2.4)
        #expect(abs(cell.lcMinusLaDB! - 2.4) < 1e-9)
    }

    @Test("a cell needs 60 seconds from 2 check-ins; LC − LA only from those that carry LCeq")
    func enough() throws {
        func piece(_ seconds: Int, lceq: Bool = true) -> PieceCharacter {
            PieceCharacter(
                classSeconds: [0, 0, 0, 0, 0, seconds], levelsDdB: Array(repeating: -400, count: seconds),
                lcMinusLaDdB: lceq ? Array(repeating: 50, count: seconds) : [])
        }
        #expect(CellCharacter.pooled([(piece(30), 0), (piece(29), 0)]) == nil)
        #expect(CellCharacter.pooled([(piece(300), 0)]) == nil)
        #expect(CellCharacter.pooled([(piece(30), 0), (piece(30), 0)])?.seconds == 60)
        #expect(CellCharacter.pooled([(piece(30, lceq: false), 0), (piece(30, lceq: false), 0)])?.lcMinusLaDB == nil)
        #expect(CellCharacter.pooled([(piece(30), 0), (piece(30, lceq: false), 0)])?.lcMinusLaDB == 5)
    }

    @Test(
        "conversation: easy under 57 dB, raised voices 57–75, hard above 75",
        arguments: [
            (56.9, ConversationBand.easy), (57.0, .raisedVoices), (75.0, .raisedVoices), (75.1, .hard),
        ])
    func conversation(_ level: Double, _ band: ConversationBand) {
        #expect(ConversationBand(calibratedDB: level) == band)
    }

    @Test("the judge gives a measured cell its character from counted pieces only, never an outlier's")
    func judged() throws {
        let wobble = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]
        func checkin(_ id: String, level: Double, spectra: Bool) throws -> VenueCheckin {
            let averages = (0..<60).map { level + wobble[$0 % 7] }
            let samples = try Self.samples(averages)
            let carried = try SpectralSamples(
                count: 60, lceqDBFS: averages.map { $0 + 1 }, bandIndexes: [3, 13],
                bandsDBFS: averages.flatMap { [$0 - 20, $0 - 10] })
            return try VenueCheckin(
                id: id, deviceID: id, samples: samples, localHours: Array(repeating: Self.friday21, count: 60),
                spectra: spectra ? carried : nil)
        }
        let checkins = [
            try checkin("a", level: -40, spectra: true), try checkin("b", level: -40.5, spectra: true),
            try checkin("c", level: -39.5, spectra: false), try checkin("d", level: -10, spectra: true),
        ]
        let judgement = VenueJudge().judge(checkins)
        #expect(judgement.checkins.map(\.status) == [.included, .included, .included, .outlier])
        let character = try #require(judgement.characters[Self.friday21])
        #expect(character.checkins == 2 && character.seconds == 120, "a and b; not c (none), not d (outlier)")
        #expect(character.lcMinusLaDB == 1)
        #expect(character.classSeconds[SoundClass.steadyNoise.index] == 120)
        #expect(judgement.checkins[0].hours[0].statistics.character?.seconds == 60)
        #expect(judgement.checkins[2].hours[0].statistics.character == nil)
    }
}
