import LoudnessCore
import Testing

@Suite("Pooled within-cell scale")
struct PooledScaleTests {
    @Test func firstQuartileOfWithinCellDistances() throws {
        // Two cells far apart in level; only distances within a cell count.
        // |differences|: [70, 71, 73, 76] → 1, 3, 6, 2, 5, 3; [60, 62, 61, 65] → 2, 1, 5, 1, 3, 4.
        // python3: q = statistics.quantiles([1,3,6,2,5,3,2,1,5,1,3,4], n=4, method='inclusive')[0] == 1.75
        //          1 / (math.sqrt(2) * statistics.NormalDist().inv_cdf(0.625)) * 1.75 == 3.8835028154738827
        let scale = try #require(
            PooledScale.withinCells([
                CellFactory.oneDeviceEach([70, 71, 73, 76]), CellFactory.oneDeviceEach([60, 62, 61, 65]),
            ]))

        #expect(abs(scale - 3.8835028154738827) < 1e-12)
    }

    @Test func aSpoiledCheckinBarelyMovesIt() throws {
        // The same cells with a 40 dB junk check-in added to the first: 4 more distances (35…39)
        // out of 16; the first quartile is still among the honest ones.
        // python3: statistics.quantiles([1,3,6,2,5,3,2,1,5,1,3,4,39,38,36,33], n=4, method='inclusive')[0] == 2.0
        let scale = try #require(
            PooledScale.withinCells([
                CellFactory.oneDeviceEach([70, 71, 73, 76, 109]), CellFactory.oneDeviceEach([60, 62, 61, 65]),
            ]))

        #expect(abs(scale - 2 * PooledScale.qnFactor) < 1e-12)
    }

    @Test func pairsOfOneDeviceDoNotCountAndTooFewPairsGiveNone() {
        // One device's three check-ins make no pair; 6 + 0 pairs is under the 10 needed.
        let sameDevice = ["a", "b", "c"].map { CellCheckin(checkinID: $0, deviceID: "d", levelDB: 70) }

        #expect(PooledScale.withinCells([CellFactory.oneDeviceEach([70, 71, 73, 76]), sameDevice]) == nil)
        #expect(PooledScale.withinCells([]) == nil)
    }
}
