import LoudnessCore
import Testing

@Suite("Session samples")
struct SessionSamplesTests {
    @Test func acceptsParallelArraysWithGaps() throws {
        let samples = try SessionSamples(
            offsetsSeconds: [0, 1, 5], averageDBFS: [-30, -31, -32], peakDBFS: [-20, -21, -22])
        #expect(samples.count == 3)
    }

    @Test func refusesMismatchedLengths() {
        #expect(throws: SessionSamplesError.lengthMismatch(field: "peakDBFS", expected: 2, actual: 1)) {
            try SessionSamples(offsetsSeconds: [0, 1], averageDBFS: [-30, -31], peakDBFS: [-20])
        }
    }

    @Test func refusesOffsetsThatDoNotIncrease() {
        #expect(throws: SessionSamplesError.offsetsNotIncreasing(index: 2)) {
            try SessionSamples(
                offsetsSeconds: [0, 1, 1], averageDBFS: [-30, -31, -32], peakDBFS: [-20, -21, -22])
        }
        #expect(throws: SessionSamplesError.nonFiniteOffset(index: 0)) {
            try SessionSamples(offsetsSeconds: [.nan], averageDBFS: [-30], peakDBFS: [-20])
        }
    }
}
