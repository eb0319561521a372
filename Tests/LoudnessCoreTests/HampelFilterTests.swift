import LoudnessCore
import Testing

@Suite("Hampel spike filter")
struct HampelFilterTests {
    @Test func marksASingleSpikeAndTheTwoSecondsAfterIt() throws {
        var levels = SampleFactory.varied(30, around: -30)
        levels[10] = -10

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(SampleFactory.indices(of: .spike, in: cleaned) == [10])
        #expect(SampleFactory.indices(of: .afterSpike, in: cleaned) == [11, 12])
        #expect(cleaned.validSeconds == 27)
        #expect(cleaned.verdict == .accepted)
    }

    @Test func afterSpikeDoesNotOverrideEarlierReasons() throws {
        // A two-second event (10, 11) and a silent second at 12: 11 stays a spike, 12 stays
        // invalid, and only 13 (within 2 s of the spike at 11) is after_spike.
        var levels = SampleFactory.varied(30, around: -30)
        levels[10] = -10
        levels[11] = -11
        levels[12] = -160

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(SampleFactory.indices(of: .spike, in: cleaned) == [10, 11])
        #expect(SampleFactory.indices(of: .invalid, in: cleaned) == [12])
        #expect(SampleFactory.indices(of: .afterSpike, in: cleaned) == [13])
    }

    @Test func leavesAStepChangeThatIsHeldAlone() throws {
        let levels = SampleFactory.varied(15, around: -30) + SampleFactory.varied(15, around: -20)

        let cleaned = SessionCleaner().clean(try SampleFactory.samples(levels))

        #expect(cleaned.rejections.allSatisfy { $0 == nil })
    }

    @Test func marksADownwardSpikeToo() throws {
        var levels = SampleFactory.varied(20, around: -30)
        levels[5] = -45

        let spikes = HampelFilter.spikes(
            offsets: levels.indices.map(Double.init), levels: levels,
            considered: Array(repeating: true, count: 20))

        #expect(spikes.indices.filter { spikes[$0] } == [5])
    }

    @Test func thresholdHasAOneDecibelFloor() {
        // A perfectly flat window has MAD 0; the scale floors at 1 dB, so the threshold is 3 dB.
        let flat: [Double] = [-30, -30, -30, -27.1, -30, -30, -30]
        let over: [Double] = [-30, -30, -30, -26.9, -30, -30, -30]
        let offsets = flat.indices.map(Double.init)
        let all = Array(repeating: true, count: 7)

        #expect(HampelFilter.spikes(offsets: offsets, levels: flat, considered: all)[3] == false)
        #expect(HampelFilter.spikes(offsets: offsets, levels: over, considered: all)[3] == true)
    }

    @Test func ignoresSecondsThatAreNotConsidered() {
        // Around index 3 every other second is excluded: if the −160s counted, the median would
        // be −160 and −30 would look like a spike.
        let levels: [Double] = [-160, -160, -160, -30, -160, -160, -160]
        let considered = levels.map { $0 > -120 }

        let spikes = HampelFilter.spikes(
            offsets: levels.indices.map(Double.init), levels: levels, considered: considered)

        #expect(spikes.allSatisfy { !$0 })
    }

    @Test func windowIsMeasuredInSecondsAcrossGaps() {
        // Seconds 0…10 (a spike at 10), then a gap to a loud stretch at 30…39. By sample count the
        // spike's window would reach the loud stretch and hide it; by time it holds 7…10 only.
        let levels =
            SampleFactory.varied(10, around: -30) + [-10] + SampleFactory.varied(10, around: -10)
        let offsets = (0...10).map(Double.init) + (30..<40).map(Double.init)

        let spikes = HampelFilter.spikes(
            offsets: offsets, levels: levels, considered: levels.map { _ in true })

        #expect(spikes.indices.filter { spikes[$0] } == [10])
    }

    @Test func afterSpikeIsMeasuredInSeconds() throws {
        // A spike at offset 10, then a gap: 11 is within 2 s of it, 15 is not.
        var levels = SampleFactory.varied(16, around: -30)
        levels[10] = -10
        let offsets = (0...11).map(Double.init) + (15...18).map(Double.init)
        let samples = try SessionSamples(
            offsetsSeconds: offsets, averageDBFS: levels, peakDBFS: levels.map { $0 + 5 })

        let cleaned = SessionCleaner().clean(samples)

        #expect(SampleFactory.indices(of: .spike, in: cleaned) == [10])
        #expect(SampleFactory.indices(of: .afterSpike, in: cleaned) == [11])
    }
}
