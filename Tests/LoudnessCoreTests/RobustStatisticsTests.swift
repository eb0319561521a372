import LoudnessCore
import Testing

@Suite("Robust statistics")
struct RobustStatisticsTests {
    @Test func median() {
        // python3: statistics.median([3, 1, 2]) == 2; statistics.median([4, 1, 3, 2]) == 2.5
        #expect(RobustStatistics.median([3, 1, 2]) == 2)
        #expect(RobustStatistics.median([4, 1, 3, 2]) == 2.5)
        #expect(RobustStatistics.median([]) == nil)
    }

    @Test func medianAbsoluteDeviation() {
        // python3: statistics.median([abs(x - 63) for x in [60, 62, 63, 64, 80]]) == 1
        #expect(RobustStatistics.medianAbsoluteDeviation([60, 62, 63, 64, 80]) == 1)
        #expect(RobustStatistics.medianAbsoluteDeviation([]) == nil)
    }

    @Test func percentilesMatchPythonInclusiveQuantiles() throws {
        let values: [Double] = [
            -30, -32, -31, -35, -29, -33, -30.5, -34, -28, -31.5,
            -32.5, -30, -29.5, -33.5, -31, -36, -30, -32, -27, -31,
        ]
        // python3: q = statistics.quantiles(values, n=10, method='inclusive')
        //          q[0] == -34.1, q[4] == -31.0, q[8] == -28.9
        let p10 = try #require(RobustStatistics.percentile(values, 10))
        let p50 = try #require(RobustStatistics.percentile(values, 50))
        let p90 = try #require(RobustStatistics.percentile(values, 90))
        #expect(abs(p10 - -34.1) < 1e-9)
        #expect(abs(p50 - -31.0) < 1e-9)
        #expect(abs(p90 - -28.9) < 1e-9)
    }

    @Test func percentileEdges() {
        #expect(RobustStatistics.percentile([5, 1, 3], 0) == 1)
        #expect(RobustStatistics.percentile([5, 1, 3], 100) == 5)
        #expect(RobustStatistics.percentile([7], 90) == 7)
        #expect(RobustStatistics.percentile([], 50) == nil)
    }

    @Test func weightedMedianWithEqualWeightsIsTheMedian() {
        // python3: statistics.median([3, 1, 2]) == 2; statistics.median([4, 1, 3, 2]) == 2.5
        #expect(RobustStatistics.weightedMedian([(3, 1), (1, 1), (2, 1)]) == 2)
        #expect(RobustStatistics.weightedMedian([(4, 1), (1, 1), (3, 1), (2, 1)]) == 2.5)
    }

    @Test func weightedMedianFollowsTheWeight() {
        // 50 (1), 68 (2), 70 (1): total 4, cumulative 1, 3 → 3 passes half (2) at 68.
        #expect(RobustStatistics.weightedMedian([(50, 1), (70, 1), (68, 2)]) == 68)
        // 50 (1), 68 (1.5): cumulative 1 < 1.25 ≤ 2.5 → 68.
        #expect(RobustStatistics.weightedMedian([(50, 1), (68, 1.5)]) == 68)
        // 70 (2), 85 (1), 86 (1): cumulative 2 is exactly half → (70 + 85) / 2.
        #expect(RobustStatistics.weightedMedian([(85, 1), (86, 1), (70, 2)]) == 77.5)
        // Non-positive weights do not count; nothing left → nil.
        #expect(RobustStatistics.weightedMedian([(1, 0), (5, 1), (9, -1)]) == 5)
        #expect(RobustStatistics.weightedMedian([(1, 0)]) == nil)
        #expect(RobustStatistics.weightedMedian([]) == nil)
    }

    /// Selection gives exactly what sorting gives (the definitions in the doc comments), on
    /// arrays with many ties and of every small length.
    @Test func selectionAgreesWithSorting() {
        var generator = SystemRandomNumberGenerator()
        for count in 1...60 {
            for _ in 0..<20 {
                let values = (0..<count).map { _ in Double(Int.random(in: -5...5, using: &generator)) / 2 }
                let sorted = values.sorted()
                let middle = count / 2
                let median = count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
                #expect(RobustStatistics.median(values) == median)
                for percent in [0.0, 25, 37.5, 50, 90, 100] {
                    #expect(
                        RobustStatistics.percentile(values, percent)
                            == RobustStatistics.percentile(sorted: sorted, percent))
                }
            }
        }
    }
}
