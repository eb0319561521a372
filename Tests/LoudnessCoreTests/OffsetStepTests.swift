import Foundation
import Testing

@testable import LoudnessCore

/// A phone's step against the crowd (docs/ARCHITECTURE.md, "Phones that drift"); the t figures
/// by hand from `t = Δ / (scale · √(1/n_before + 1/n_after))` with scale 2.5 dB.
@Suite("Offset steps")
struct OffsetStepTests {
    /// Twenty readings alternating +1, −1 (mean 0), then a 6 dB step alternating 7, 5.
    static func readings(after: Int, step: Double = 6) -> [(time: Double, valueDB: Double)] {
        let before = (0..<20).map { (time: Double($0), valueDB: $0.isMultiple(of: 2) ? 1.0 : -1.0) }
        let stepped = (0..<after).map { (time: Double(20 + $0), valueDB: step + ($0.isMultiple(of: 2) ? 1.0 : -1.0)) }
        return before + stepped
    }

    @Test func aSixDecibelStepIsFlaggedAtItsFifthReading() throws {
        // After 3: Δ = 19/3 = 6.33, t = 6.33 / (2.5 · √(1/20 + 1/3)) = 4.09 < 4.5.
        // After 4: Δ = 6, t = 6 / (2.5 · √(0.05 + 0.25)) = 4.38 < 4.5.
        // After 5: Δ = 31/5 = 6.2, t = 6.2 / (2.5 · √(0.05 + 0.2)) = 4.96 ≥ 4.5: flagged.
        #expect(OffsetStep.find(Self.readings(after: 4), scaleDB: 2.5) == nil)
        let step = try #require(OffsetStep.find(Self.readings(after: 10), scaleDB: 2.5))
        #expect(step.at == 20)
        #expect(abs(step.shiftDB - 6) < 1e-9)
        #expect(step.detectedAfter == 5)
        #expect(step.detectedAt == 24)
    }

    @Test func aDownwardStepIsFoundAsNegative() throws {
        let step = try #require(OffsetStep.find(Self.readings(after: 10, step: -6), scaleDB: 2.5))
        #expect(abs(step.shiftDB + 6) < 1e-9)
    }

    @Test func aSteadyPhoneAndASmallStepAreNotFlagged() {
        // ±2.5 around 0 for 60 readings: no split reaches 4.5.
        let steady = (0..<60).map { (time: Double($0), valueDB: $0.isMultiple(of: 2) ? 2.5 : -2.5) }
        #expect(OffsetStep.find(steady, scaleDB: 2.5) == nil)
        // 2 dB is under the 3 dB a step must move, however many readings show it.
        let small = Self.readings(after: 40, step: 2)
        #expect(OffsetStep.find(small, scaleDB: 0.5) == nil)
    }

    @Test func outliersAreClippedAtThreeScales() {
        // One reading 40 dB off among steady ones: clipped to 7.5, it is no step (at the end: the
        // minimum after is 2 readings; one outlier followed by steady readings moves no mean enough).
        var readings = (0..<30).map { (time: Double($0), valueDB: $0.isMultiple(of: 2) ? 1.0 : -1.0) }
        readings[25].valueDB = 40
        #expect(OffsetStep.find(readings, scaleDB: 2.5) == nil)
    }
}
