import Testing

@testable import LoudnessCore

@Suite("Estimates for cells without data")
struct PatternEstimatorTests {
    /// Monday to Wednesday at 12, 13 and 20 h, three devices a cell, level = 50 + 2 on Tuesdays
    /// + 12 at 20 h, exactly additive; Wednesday 20 h left empty. Every measured cell is given a
    /// ±2 dB range.
    static func week() -> (kept: [LocalHour: [CellCheckin]], measured: [LocalHour: CellEstimate]) {
        var kept: [LocalHour: [CellCheckin]] = [:]
        var measured: [LocalHour: CellEstimate] = [:]
        for weekday in 1...3 {
            for hour in [12, 13, 20] where !(weekday == 3 && hour == 20) {
                let level = 50.0 + (weekday == 2 ? 2 : 0) + (hour == 20 ? 12 : 0)
                let cell = LocalHour(weekday: weekday, hour: hour)
                kept[cell] = (1...3).map {
                    CellCheckin(checkinID: "\(weekday)-\(hour)-\($0)", deviceID: "d\($0)", levelDB: level)
                }
                measured[cell] = CellEstimate(
                    levelDB: level, rangeDB: (level - 2)...(level + 2), scaleDB: 1, checkinCount: 3,
                    includedCheckinCount: 3, deviceCount: 3, confidence: .medium, assessments: [])
            }
        }
        return (kept, measured)
    }

    @Test func anEmptyCellGetsTheProfilesPredictionWithAnHonestRange() throws {
        let (kept, measured) = Self.week()
        let estimates = PatternEstimator().estimates(kept: kept, measured: measured)
        let wednesdayEvening = try #require(estimates[LocalHour(weekday: 3, hour: 20)])
        // Median polish recovers an exactly additive week: 50 + 0 (Wednesday) + 12 (20 h).
        #expect(abs(wednesdayEvening.levelDB - 62) < 1e-9)
        #expect(wednesdayEvening.basis == .venuePattern)
        #expect(wednesdayEvening.confidence == .low)
        // By hand: s = 0 and σ = 0 are floored at 1 dB, τ² = max(1 − 1, 1) = 1, n_d = n_h = 6, so
        // √(1 + 1/6 + 1/6) = 1.155 dB; the floors are 1.5 dB and (median half-width 2 + 1)/1.96
        // = 1.5306 dB, which wins.
        #expect(abs(wednesdayEvening.scaleDB - 3 / 1.96) < 1e-9)
        #expect(abs((wednesdayEvening.rangeDB.upperBound - wednesdayEvening.rangeDB.lowerBound) - 6) < 1e-9)
    }

    @Test func noEstimateWithoutABasisAndNoneForMeasuredCells() {
        let (kept, measured) = Self.week()
        let estimates = PatternEstimator().estimates(kept: kept, measured: measured)
        // Only Wednesday 20 h has its weekday and hour seen elsewhere: 2 am, Thursday and the
        // measured cells get nothing.
        #expect(Set(estimates.keys) == [LocalHour(weekday: 3, hour: 20)])
        // Fewer than 20 kept check-ins: no profile, no estimates.
        let few = kept.mapValues { Array($0.prefix(2)) }
        #expect(PatternEstimator().estimates(kept: few, measured: measured).isEmpty)
    }
}
