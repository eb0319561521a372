import LoudnessCore
import Testing

@Suite("Cell estimation across check-ins")
struct CellEstimatorTests {
    private let estimator = CellEstimator()
    private let clean: [Double] = [70.0, 71.0, 71.5, 72.5, 73.0]

    @Test func cleanSetGivesItsMean() throws {
        let estimate = try #require(estimator.estimate(CellFactory.oneDeviceEach(clean)))

        // python3: statistics.mean([70.0, 71.0, 71.5, 72.5, 73.0]) == 71.6; every residual is under
        // k·scale = 1.345 × 1.4826 × MAD(=1), so Huber weights are all 1.
        #expect(abs(estimate.levelDB - 71.6) < 1e-9)
        // python3: 1.96 * 1.4826 / math.sqrt(5) == 1.2995561983089456
        #expect(abs(estimate.scaleDB - 1.4826) < 1e-12)
        #expect(abs(estimate.rangeDB.upperBound - (71.6 + 1.2995561983089456)) < 1e-9)
        #expect(abs(estimate.rangeDB.lowerBound - (71.6 - 1.2995561983089456)) < 1e-9)
        #expect(estimate.checkinCount == 5)
        #expect(estimate.includedCheckinCount == 5)
        #expect(estimate.deviceCount == 5)
        #expect(estimate.confidence == .high)
        #expect(estimate.assessments.allSatisfy { !$0.isOutlier })
    }

    @Test func grossOutlierIsFlaggedAndDoesNotMoveTheCell() throws {
        let estimate = try #require(estimator.estimate(CellFactory.oneDeviceEach(clean + [100])))

        // python3: xs = clean + [100]; m = statistics.median(xs) == 72.0;
        //          d = statistics.median([abs(x - m) for x in xs]) == 1.0; 0.6745 * (100 - m) / d == 18.886
        let outlier = try #require(estimate.assessments.last)
        #expect(outlier.checkinID == "c5")
        #expect(abs(outlier.modifiedZ - 18.886) < 1e-9)
        #expect(outlier.isOutlier)
        #expect(estimate.assessments.dropLast().allSatisfy { !$0.isOutlier })
        // Recomputed without the outlier: the clean mean 71.6, not the raw mean 76.33.
        #expect(abs(estimate.levelDB - 71.6) < 1e-9)
        #expect(estimate.checkinCount == 6)
        #expect(estimate.includedCheckinCount == 5)
        #expect(estimate.deviceCount == 5)
    }

    @Test func modifiedZOnAKnownSet() {
        let z = estimator.modifiedZScores([60, 62, 63, 64, 80])

        // python3: m = statistics.median(ys) == 63; d = statistics.median([abs(y - m) for y in ys]) == 1
        //          [0.6745 * (y - m) / d for y in ys] == [-2.0235, -0.6745, 0.0, 0.6745, 11.4665]
        let expected = [-2.0235, -0.6745, 0.0, 0.6745, 11.4665]
        #expect(zip(z, expected).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(z.count == 5)
    }

    @Test func madIsFlooredSoIdenticalValuesDoNotDivideByZero() throws {
        // MAD of [70, 70, 70, 70, x] is 0; floored to 1/1.4826 dB.
        // python3: 0.6745 * 4 / (1 / 1.4826) == 4.0000548; 0.6745 * 3 / (1 / 1.4826) == 3.0000411
        let four = estimator.modifiedZScores([70, 70, 70, 70, 74])
        let three = estimator.modifiedZScores([70, 70, 70, 70, 73])
        #expect(abs(four[4] - 4.0000548) < 1e-9)
        #expect(abs(three[4] - 3.0000411) < 1e-9)
        let estimate = try #require(
            estimator.estimate(CellFactory.oneDeviceEach([70, 70, 70, 70, 74])))
        #expect(estimate.assessments[4].isOutlier)
        #expect(estimate.levelDB == 70)
        #expect(estimate.scaleDB == 1)
    }

    @Test func twoCheckinsRejectNothing() throws {
        let estimate = try #require(estimator.estimate(CellFactory.oneDeviceEach([70, 100])))

        #expect(estimate.assessments.allSatisfy { !$0.isOutlier })
        // python3: statistics.mean([70, 100]) == 85; scale 1.4826 * 15 == 22.239 covers both.
        #expect(abs(estimate.levelDB - 85) < 1e-9)
        #expect(abs(estimate.scaleDB - 22.239) < 1e-9)
        #expect(estimate.confidence == .low)
    }

    @Test func twoCheckinsRejectNothingEvenUnderAStrictThreshold() throws {
        // With two values |x − median| always equals the MAD, so z = ±0.6745 (python3:
        // 0.6745 * (100 - 85) / statistics.median([15, 15]) == 0.6745). A threshold of 0.5 would
        // reject both; the ≤ 2 rule keeps them, while a third check-in enables rejection.
        var strict = CellEstimator()
        strict.outlierThreshold = 0.5

        let two = try #require(strict.estimate(CellFactory.oneDeviceEach([70, 100])))
        let three = try #require(strict.estimate(CellFactory.oneDeviceEach([70, 71, 100])))

        #expect(two.assessments.map(\.isOutlier) == [false, false])
        #expect(two.assessments.map(\.modifiedZ) == [-0.6745, 0.6745])
        // python3: 0.6745 * (100 - 71) / statistics.median([1, 0, 29]) == 19.5605
        #expect(three.assessments.map(\.isOutlier) == [true, false, true])
        #expect(abs(three.assessments[2].modifiedZ - 19.5605) < 1e-9)
    }

    @Test func oneDeviceCountsOnce() throws {
        let checkins = [
            CellCheckin(checkinID: "a1", deviceID: "a", levelDB: 70),
            CellCheckin(checkinID: "a2", deviceID: "a", levelDB: 72),
            CellCheckin(checkinID: "a3", deviceID: "a", levelDB: 73),
            CellCheckin(checkinID: "b1", deviceID: "b", levelDB: 73.5),
            CellCheckin(checkinID: "c1", deviceID: "c", levelDB: 71),
        ]

        let estimate = try #require(estimator.estimate(checkins))

        // python3: statistics.mean([statistics.median([70, 72, 73]), 73.5, 71]) == 72.16666666666667
        #expect(abs(estimate.levelDB - 72.16666666666667) < 1e-9)
        #expect(estimate.deviceCount == 3)
        #expect(estimate.includedCheckinCount == 5)
        // python3: 1.96 * 1.4826 / math.sqrt(3) == 1.6777198378370568 ≤ 2 → high
        #expect(estimate.confidence == .high)
    }

    @Test func noCheckinsNoEstimate() {
        #expect(estimator.estimate([]) == nil)
    }

    @Test func confidenceRule() {
        #expect(Confidence.rate(checkins: 5, devices: 3, halfWidthDB: 2) == .high)
        #expect(Confidence.rate(checkins: 5, devices: 3, halfWidthDB: 2.01) == .medium)
        #expect(Confidence.rate(checkins: 4, devices: 3, halfWidthDB: 1) == .medium)
        #expect(Confidence.rate(checkins: 5, devices: 2, halfWidthDB: 1) == .medium)
        #expect(Confidence.rate(checkins: 3, devices: 2, halfWidthDB: 4) == .medium)
        #expect(Confidence.rate(checkins: 3, devices: 2, halfWidthDB: 4.01) == .low)
        #expect(Confidence.rate(checkins: 2, devices: 2, halfWidthDB: 1) == .low)
        #expect(Confidence.rate(checkins: 10, devices: 1, halfWidthDB: 1) == .low)
        #expect(Confidence.low < Confidence.medium && Confidence.medium < Confidence.high)
    }
}
