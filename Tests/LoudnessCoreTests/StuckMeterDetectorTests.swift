import LoudnessCore
import Testing

@Suite("Stuck meter detection")
struct StuckMeterDetectorTests {
    private func stuckIndices(_ levels: [Double], considered: [Bool]? = nil) -> [Int] {
        let flags = StuckMeterDetector.stuck(
            levels: levels, considered: considered ?? levels.map { _ in true })
        return flags.indices.filter { flags[$0] }
    }

    @Test func marksFiveOrMoreIdenticalValues() throws {
        var levels = SampleFactory.varied(30, around: -30)
        for index in 10...15 { levels[index] = -31.234 }

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(SampleFactory.indices(of: .stuck, in: cleaned) == Array(10...15))
        #expect(cleaned.verdict == .accepted)
    }

    @Test func fourIdenticalValuesAreNotStuck() {
        var levels = SampleFactory.varied(20, around: -30)
        for index in 5...8 { levels[index] = -31.234 }

        #expect(stuckIndices(levels).isEmpty)
    }

    @Test func nearZeroVarianceCountsAsStuck() {
        // max − min = −30.000 − (−30.009) = 0.009 dB < 0.01 dB
        let nearlyFlat: [Double] = [-30.000, -30.003, -30.006, -30.002, -30.009]
        // max − min = 0.011 dB: not stuck
        let moving: [Double] = [-30.000, -30.003, -30.006, -30.002, -30.011]

        #expect(stuckIndices(nearlyFlat) == [0, 1, 2, 3, 4])
        #expect(stuckIndices(moving).isEmpty)
    }

    @Test func runContinuesAcrossSecondsNotConsidered() {
        let levels: [Double] = [-40, -40, -160, -40, -40, -40, -33]
        let considered = levels.map { $0 > -120 }

        #expect(stuckIndices(levels, considered: considered) == [0, 1, 3, 4, 5])
    }

    @Test func aStuckCheckinIsExcludedAsStuckMeter() throws {
        let levels = Array(repeating: -25.0, count: 40)

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(cleaned.count(of: .stuck) == 40)
        #expect(cleaned.verdict == .excluded(.stuckMeter))
    }
}
