import LoudnessCore
import Testing

@Suite("Dropout detection")
struct DropoutDetectorTests {
    @Test func marksTwentySecondsInAPocket() throws {
        // python3: statistics.median(levels) is about −30 (40 of 60 seconds near −30), so the
        // pocket at about −50 sits ~20 dB under it; a centred 15 s median turns at the edges.
        let levels =
            SampleFactory.varied(20, around: -30) + SampleFactory.varied(20, around: -50)
            + SampleFactory.varied(20, around: -30)

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(SampleFactory.indices(of: .dropout, in: cleaned) == Array(20...39))
        #expect(cleaned.validSeconds == 40)
        #expect(cleaned.verdict == .accepted)
    }

    @Test func needsTenConsecutiveSeconds() {
        func dropouts(dipLength: Int) -> Int {
            let levels =
                SampleFactory.varied(20, around: -30) + SampleFactory.varied(dipLength, around: -50)
                + SampleFactory.varied(20, around: -30)
            return DropoutDetector.dropouts(
                offsets: levels.indices.map(Double.init), levels: levels,
                considered: levels.map { _ in true }
            ).count { $0 }
        }

        #expect(dropouts(dipLength: 9) == 0)
        #expect(dropouts(dipLength: 10) == 10)
    }

    @Test func needsTenDecibelsOfDepth() {
        func dropouts(depthDB: Double) -> Int {
            let levels =
                SampleFactory.varied(20, around: -30) + SampleFactory.varied(20, around: -30 - depthDB)
                + SampleFactory.varied(20, around: -30)
            return DropoutDetector.dropouts(
                offsets: levels.indices.map(Double.init), levels: levels,
                considered: levels.map { _ in true }
            ).count { $0 }
        }

        #expect(dropouts(depthDB: 8) == 0)
        #expect(dropouts(depthDB: 12) == 20)
    }

    @Test func aCheckinMostlyInAPocketIsExcludedAsDropout() throws {
        // 14 kept seconds < 15, and the 12 removed ones are all dropouts.
        let levels = SampleFactory.varied(14, around: -30) + SampleFactory.varied(12, around: -50)

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(cleaned.count(of: .dropout) == 12)
        #expect(cleaned.verdict == .excluded(.dropout))
    }
}
