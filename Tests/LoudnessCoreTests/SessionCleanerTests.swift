import LoudnessCore
import Testing

@Suite("Session cleaning: validity and verdict")
struct SessionCleanerTests {
    private let cleaner = SessionCleaner()

    @Test func validityEdges() {
        #expect(!cleaner.isValid(average: -120, peak: -110))
        #expect(cleaner.isValid(average: -119.99, peak: -110))
        #expect(cleaner.isValid(average: 6, peak: 6))
        #expect(!cleaner.isValid(average: 6.01, peak: 7))
        #expect(cleaner.isValid(average: -30, peak: -30.5))
        #expect(!cleaner.isValid(average: -30, peak: -30.51))
        #expect(!cleaner.isValid(average: .nan, peak: -10))
        #expect(!cleaner.isValid(average: -30, peak: .infinity))
    }

    @Test func invalidSecondsAreMarked() throws {
        var levels = SampleFactory.varied(20, around: -30)
        levels[3] = -160
        var samples = try SampleFactory.samples(levels)
        var peaks = samples.peakDBFS
        peaks[7] = levels[7] - 1
        samples = try SessionSamples(
            offsetsSeconds: samples.offsetsSeconds, averageDBFS: levels, peakDBFS: peaks)

        let cleaned = cleaner.clean(samples)

        #expect(SampleFactory.indices(of: .invalid, in: cleaned) == [3, 7])
    }

    /// `valid` varied seconds followed by `invalid` seconds of −160 dBFS silence.
    private func verdict(valid: Int, invalid: Int) throws -> CheckinVerdict {
        let levels = SampleFactory.varied(valid, around: -30) + Array(repeating: -160, count: invalid)
        return cleaner.clean(try SampleFactory.samples(levels)).verdict
    }

    @Test func fifteenValidSecondsAtHalfShareIsEnough() throws {
        #expect(try verdict(valid: 15, invalid: 15) == .accepted)
        #expect(try verdict(valid: 15, invalid: 0) == .accepted)
        #expect(try verdict(valid: 16, invalid: 16) == .accepted)
    }

    @Test func fourteenValidSecondsAreTooFew() throws {
        #expect(try verdict(valid: 14, invalid: 0) == .excluded(.tooFewValidSeconds))
        #expect(try verdict(valid: 14, invalid: 14) == .excluded(.tooFewValidSeconds))
    }

    @Test func underHalfValidIsTooLittleShare() throws {
        // python3: 16 / 33 >= 0.5 → False
        #expect(try verdict(valid: 16, invalid: 17) == .excluded(.tooLittleValidShare))
    }

    @Test func emptyCheckinHasTooFewSeconds() throws {
        #expect(try verdict(valid: 0, invalid: 0) == .excluded(.tooFewValidSeconds))
    }

    @Test func reasonStringsAreStable() {
        #expect(SecondRejection.afterSpike.rawValue == "after_spike")
        #expect(CheckinExclusion.tooFewValidSeconds.rawValue == "too_few_valid_seconds")
        #expect(CheckinExclusion.tooLittleValidShare.rawValue == "too_little_valid_share")
        #expect(CheckinExclusion.stuckMeter.rawValue == "stuck_meter")
    }
}
