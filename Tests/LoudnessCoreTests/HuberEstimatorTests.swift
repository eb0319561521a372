import LoudnessCore
import Testing

@Suite("Huber M-estimate")
struct HuberEstimatorTests {
    @Test func grossOutlierBarelyMovesIt() throws {
        let values: [Double] = [70.0, 71.0, 71.5, 72.5, 73.0, 100]
        let scale = try #require(HuberEstimator.pooledScale(values))

        let location = try #require(HuberEstimator.location(values, scale: scale))

        // python3: s = max(1.4826 * 1.0, 1); mu = statistics.median(values)
        //   for _ in range(200):
        //       w = [min(1, 1.345 * s / abs(x - mu)) if x != mu else 1 for x in values]
        //       mu = sum(a * b for a, b in zip(w, values)) / sum(w)
        //   mu == 72.0   (statistics.mean(values) == 76.333…)
        #expect(abs(scale - 1.4826) < 1e-12)
        #expect(abs(location - 72.0) < 1e-9)
    }

    @Test func cleanSymmetricSetGivesItsMean() throws {
        // python3: statistics.mean([60, 61, 62, 63, 64]) == 62
        let location = try #require(HuberEstimator.location([64, 60, 62, 61, 63], scale: 1.4826))
        #expect(abs(location - 62) < 1e-9)
    }

    @Test func scaleHasAOneDecibelFloor() {
        #expect(HuberEstimator.pooledScale([70, 70, 70]) == 1)
        #expect(HuberEstimator.pooledScale([]) == nil)
        #expect(HuberEstimator.location([], scale: 1) == nil)
    }
}
