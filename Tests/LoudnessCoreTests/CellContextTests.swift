import LoudnessCore
import Testing

@Suite("Cells judged in the context of their venue")
struct CellContextTests {
    private let estimator = CellEstimator()
    private let venue = CellContext(pooledScaleDB: 3)

    @Test func thePooledScaleFindsJunkTheCellsOwnMADHides() throws {
        // Two honest devices 5.3 dB apart and a pocket check-in 16.2 dB under the median.
        // Alone: python3: 0.6745 * (52.4 - 68.6) / statistics.median([0, 16.2, 5.3]) == -2.0616…: kept.
        // With the venue's σ = 3 dB: (52.4 − 68.6) / 3 = −5.4: an outlier; (73.9 − 68.6) / 3 = 1.7667.
        let cell = CellFactory.oneDeviceEach([68.6, 52.4, 73.9])

        let alone = estimator.assess(cell)
        let estimate = try #require(estimator.estimate(cell, context: venue))

        #expect(alone.map(\.isOutlier) == [false, false, false])
        #expect(estimate.assessments.map(\.isOutlier) == [false, true, false])
        #expect(abs(estimate.assessments[1].modifiedZ - -5.4) < 1e-9)
        #expect(abs(estimate.assessments[2].modifiedZ - 1.7666666666666) < 1e-9)
        // Huber of [68.6, 73.9] with scale max(1.4826 × 2.65, 3) = 3.928889: both within k·scale of
        // their mean, so the mean 71.25.
        #expect(abs(estimate.levelDB - 71.25) < 1e-9)
        #expect(abs(estimate.scaleDB - 3.92889) < 1e-9)
    }

    @Test func withoutAPredictionTwoCheckinsStillRejectNothing() throws {
        // Centre 85, z = ±5, but two check-ins alone cannot say which is off.
        let estimate = try #require(estimator.estimate(CellFactory.oneDeviceEach([70, 100]), context: venue))

        #expect(estimate.assessments.map(\.isOutlier) == [false, false])
        #expect(abs(estimate.levelDB - 85) < 1e-9)
    }

    @Test func aPredictionTellsWhichOfTwoIsOff() throws {
        // An always-full-scale phone beside an honest one; the venue's other hours say 72.
        // Weighted median of 74.9 (1), 109.4 (1), 72 (1) = 74.9; (109.4 − 74.9) / 3 = 11.5.
        let context = CellContext(pooledScaleDB: 3, priorDB: 72, priorWeight: 1)

        let estimate = try #require(estimator.estimate(CellFactory.oneDeviceEach([74.9, 109.4]), context: context))

        #expect(estimate.assessments.map(\.isOutlier) == [false, true])
        #expect(abs(estimate.assessments[1].modifiedZ - 11.5) < 1e-9)
        #expect(abs(estimate.levelDB - 74.9) < 1e-9)
        #expect(estimate.includedCheckinCount == 1)
    }

    @Test func aLoneCheckinFarFromThePredictionLeavesTheCellEmpty() {
        // Weighted median of 50 (1) and 68 (1.5) is 68; (50 − 68) / 3 = −6.
        let context = CellContext(pooledScaleDB: 3, priorDB: 68, priorWeight: 1.5)

        let assessments = estimator.assess(CellFactory.oneDeviceEach([50]), context: context)

        #expect(assessments.map(\.isOutlier) == [true])
        #expect(abs(assessments[0].modifiedZ - -6) < 1e-9)
        #expect(estimator.estimate(CellFactory.oneDeviceEach([50]), context: context) == nil)
    }

    @Test func twoAgreeingJunkCheckinsDoNotOutvoteTheProfile() throws {
        // Two pockets and one honest check-in. Alone the median is a pocket (47.5) and the honest
        // one would be the outlier. With 68 (1.5): cumulative 1, 2, 3.5 of 4.5 → centre 68;
        // z = −7.6333, −6.8333, 0.0667.
        let context = CellContext(pooledScaleDB: 3, priorDB: 68, priorWeight: 1.5)

        let estimate = try #require(
            estimator.estimate(CellFactory.oneDeviceEach([45.1, 47.5, 68.2]), context: context))

        #expect(estimate.assessments.map(\.isOutlier) == [true, true, false])
        #expect(abs(estimate.levelDB - 68.2) < 1e-9)
    }

    @Test func threeAgreeingDevicesOutvoteTheProfile() throws {
        // A special night 15 dB over the profile. Two devices against weight 2: cumulative 2 of 4 is
        // exactly half → centre (70 + 85) / 2 = 77.5, z = 2.5 and 2.8333: kept. Three: centre 84.
        let context = CellContext(pooledScaleDB: 3, priorDB: 70, priorWeight: 2)

        let two = estimator.assess(CellFactory.oneDeviceEach([85, 86]), context: context)
        let three = try #require(estimator.estimate(CellFactory.oneDeviceEach([84, 85, 86]), context: context))

        #expect(two.map(\.isOutlier) == [false, false])
        #expect(abs(two[0].modifiedZ - 2.5) < 1e-9)
        #expect(three.assessments.map(\.isOutlier) == [false, false, false])
        #expect(abs(three.levelDB - 85) < 1e-9)
    }

    @Test func aWidelySpreadBigCellKeepsItsOwnScale() {
        // Ten devices 60, 62, …, 78 (median 69, MAD 5, 1.4826 × 5 = 7.413 dB) in a venue whose cells
        // usually spread 2 dB: with 10 devices the cell's own scale counts, so 60 is (60 − 69) / 7.413.
        let cell = CellFactory.oneDeviceEach(stride(from: 60.0, through: 78, by: 2).map { $0 })
        let tight = CellContext(pooledScaleDB: 2)

        let assessments = estimator.assess(cell, context: tight)
        let nine = estimator.assess(Array(cell.prefix(9)), context: tight)

        #expect(assessments.allSatisfy { !$0.isOutlier })
        #expect(abs(assessments[0].modifiedZ - -9 / 7.413) < 1e-9)
        // Nine devices (60…76, median 68): the venue's 2 dB; 60 is at −4, an outlier.
        #expect(nine[0].isOutlier)
        #expect(abs(nine[0].modifiedZ - -4) < 1e-9)
    }

    @Test func thePredictionIsWorthWhatTheProfileKnows() {
        // σ = 3, s = 5: τ² = 25 − 9 = 16, weight 9/16. s = 3.5: τ² = 12.25 − 9 = 3.25, 9/3.25 = 2.77
        // → capped at 2. s under σ: τ² floored at 1 → 9 → 2. σ floored at 1: s = 2 → 1/3.
        #expect(CellContext.priorWeight(pooledScaleDB: 3, residualScaleDB: 5) == 0.5625)
        #expect(CellContext.priorWeight(pooledScaleDB: 3, residualScaleDB: 3.5) == 2)
        #expect(CellContext.priorWeight(pooledScaleDB: 3, residualScaleDB: 2) == 2)
        #expect(abs(CellContext.priorWeight(pooledScaleDB: 0.5, residualScaleDB: 2) - 1.0 / 3) < 1e-12)
    }
}
