import Testing

@testable import LoudnessCore

@Suite("Estimates from venues of the same category nearby")
struct NeighbourEstimatorTests {
    /// The venue measured Monday 12–15 h at 60, 66, 63 and 62 dB, each with a ±2 dB range.
    static let own: [LocalHour: CellEstimate] = Dictionary(
        uniqueKeysWithValues: [(12, 60.0), (13, 66), (14, 63), (15, 62)].map { hour, level in
            (
                LocalHour(weekday: 1, hour: hour),
                CellEstimate(
                    levelDB: level, rangeDB: (level - 2)...(level + 2), scaleDB: 1, checkinCount: 3,
                    includedCheckinCount: 3, deviceCount: 3, confidence: .medium, assessments: [])
            )
        })

    /// Monday levels by hour, as a week-long array.
    static func week(_ levels: [Int: Double]) -> [Double?] {
        var week = [Double?](repeating: nil, count: LocalHour.cellCount)
        for (hour, level) in levels { week[LocalHour(weekday: 1, hour: hour).cellIndex] = level }
        return week
    }

    /// Three neighbours parallel to each other and to the venue except at 13 h (where the venue is
    /// 5 dB above what they predict); a fourth that shares only one cell with the venue.
    static let neighbours = [
        week([12: 57, 13: 58, 14: 60, 15: 59, 16: 61, 20: 70]),
        week([12: 55, 13: 56, 14: 58, 15: 57, 16: 60, 20: 71]),
        week([12: 62, 13: 63, 14: 65, 15: 64, 16: 65]),
        week([12: 50, 16: 52, 20: 40]),
    ]

    @Test func anEmptyCellGetsTheNeighboursShiftedMedianWithItsError() throws {
        let estimates = NeighbourEstimator().estimates(measured: Self.own, covered: [], neighbours: Self.neighbours)
        let four = try #require(estimates[LocalHour(weekday: 1, hour: 16)])
        // By hand (and with Python's statistics.median): the offsets are the medians of the
        // differences, 3, 5 and −2 dB (the fourth neighbour shares one cell: unused); at 16 h the
        // shifted neighbours say 64, 65 and 63, median 64.
        #expect(four.levelDB == 64)
        #expect(four.basis == .categoryNearby)
        #expect(four.confidence == .low)
        // Residuals on the venue's own cells: 0, 5, 0, 0, where the three predictions agree (no
        // spread): Σr²/(m − 1) = 25/3; less the measured cells' own error (2/1.96)² = 1.04123:
        // τ² = 7.29210. At 16 h the predictions' MAD is 1, s = 1.4826, v = π/2 · 1.4826²/3 =
        // 1.15094; √(τ² + v) = 2.90569 dB (computed in Python with statistics.median), above both
        // floors (1.5 dB; (2 + 1)/1.96 = 1.53 dB).
        #expect(abs(four.scaleDB - 2.905688288073946) < 1e-9)
        #expect(abs(four.rangeDB.upperBound - (64 + 1.96 * 2.905688288073946)) < 1e-9)
    }

    @Test func noEstimateWithoutEnoughNeighboursThereOrForCoveredOrMeasuredCells() {
        let estimates = NeighbourEstimator().estimates(measured: Self.own, covered: [], neighbours: Self.neighbours)
        // 20 h: two usable neighbours measured it (the third is unusable); 2 am: none. Measured
        // cells are never estimated.
        #expect(Set(estimates.keys) == [LocalHour(weekday: 1, hour: 16)])
        // A cell the venue's own pattern covers is left to it.
        let covered = NeighbourEstimator().estimates(
            measured: Self.own, covered: [LocalHour(weekday: 1, hour: 16)], neighbours: Self.neighbours)
        #expect(covered.isEmpty)
        // Two neighbours are not enough.
        #expect(
            NeighbourEstimator().estimates(
                measured: Self.own, covered: [], neighbours: Array(Self.neighbours.prefix(2))
            ).isEmpty)
    }

    @Test func noEstimateWhenNothingSaysHowFarToTrustTheNeighbours() {
        // Three usable neighbours, each sharing three of the venue's four cells, but only 14 h did
        // all three measure: one residual, not enough to judge the predictions by.
        let sparse = [
            Self.week([12: 57, 13: 58, 14: 60, 16: 61]), Self.week([13: 56, 14: 58, 15: 57, 16: 60]),
            Self.week([12: 62, 14: 65, 15: 64, 16: 65]),
        ]
        #expect(NeighbourEstimator().estimates(measured: Self.own, covered: [], neighbours: sparse).isEmpty)
    }

    @Test func cellIndexesRoundTrip() {
        for index in 0..<LocalHour.cellCount {
            #expect(LocalHour(cellIndex: index).cellIndex == index)
        }
        #expect(LocalHour(weekday: 7, hour: 23).cellIndex == 167)
        #expect(LocalHour(weekday: 2, hour: 0).cellIndex == 24)
    }
}
