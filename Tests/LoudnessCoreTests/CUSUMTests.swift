import Foundation
import Testing

@testable import LoudnessCore

@Suite("Tabular CUSUM")
struct CUSUMTests {
    @Test func aStepOfKnownSizeIsDatedAndCountedByHand() throws {
        // k = 0.5, h = 4. Zeros leave both sums at 0; then +2 each time: the upper sum grows by
        // 2 − 0.5 = 1.5 a value: 1.5, 3.0, 4.5 → the alarm at the third value of the step
        // (index 12), its run starting at the step (index 10).
        let values = [Double](repeating: 0, count: 10) + [Double](repeating: 2, count: 5)
        var cusum = CUSUM(k: 0.5, h: 4)
        var alarm: CUSUM.Alarm?
        for (index, z) in values.enumerated() {
            alarm = cusum.update(z, index: index)
            if alarm != nil { break }
        }
        let found = try #require(alarm)
        #expect(found.direction == .up)
        #expect(found.start == 10)
        #expect(found.at == 12)
        #expect(abs(found.statistic - 4.5) < 1e-12)
        #expect(CUSUM.runLength(k: 0.5, h: 4, values) == 13)
    }

    @Test func aDownwardStepAlarmsOnTheLowerSide() throws {
        // −3 a value: the lower sum grows by 2.5: 2.5, 5.0 → the alarm at the second.
        let values: [Double] = [0.2, -0.1, -3, -3, -3]
        var cusum = CUSUM(k: 0.5, h: 4)
        var alarm: CUSUM.Alarm?
        for (index, z) in values.enumerated() where alarm == nil { alarm = cusum.update(z, index: index) }
        #expect(alarm?.direction == .down)
        #expect(alarm?.start == 2)
        #expect(alarm?.at == 3)
    }

    @Test func aRunThatFallsBackToZeroStartsAgain() throws {
        // +1.5 (sum 1), −2 (back to 0), then +2.5 twice (2, 4) and once more (6 > 4): the run
        // starts at index 2, after the zero, not at index 0.
        let values: [Double] = [1.5, -2, 2.5, 2.5, 2.5]
        var cusum = CUSUM(k: 0.5, h: 4)
        var alarm: CUSUM.Alarm?
        for (index, z) in values.enumerated() where alarm == nil { alarm = cusum.update(z, index: index) }
        #expect(alarm?.start == 2)
        #expect(alarm?.at == 4)
    }

    @Test func aWeightScalesAValuesStep() throws {
        // Weight 0.1: +5.5 adds 0.1 · (5.5 − 0.5) = 0.5 a value: eight values reach 4.0, which is
        // not over h = 4; the ninth (4.5) is.
        var cusum = CUSUM(k: 0.5, h: 4)
        for index in 0..<8 { #expect(cusum.update(5.5, weight: 0.1, index: index) == nil) }
        #expect(abs(cusum.upper - 4) < 1e-9)
        #expect(cusum.update(5.5, weight: 0.1, index: 8)?.start == 0)
    }

    /// Two-sided average run lengths of the tabular CUSUM with k = 1/2, from Montgomery,
    /// *Introduction to Statistical Quality Control*, Table 9.3; recomputed here to three figures
    /// by Brook and Evans' Markov chain (400 states, scipy.stats.norm), e.g. 167.68 and 465.43 at
    /// no shift.
    static let table: [(shift: Double, h4: Double, h5: Double)] = [
        (0, 168, 465), (0.5, 26.6, 38.0), (1, 8.38, 10.4), (1.5, 4.75, 5.75), (2, 3.34, 4.01), (3, 2.19, 2.57),
    ]

    @Test(arguments: [4.0, 5.0])
    func runLengthsMatchTheTable(h: Double) {
        // 3,000 runs of N(shift, 1) values a row: the mean run length is within 4 standard errors
        // (the runs' SD over √3000) of the table, for every shift.
        var random = SplitMix64(seed: h == 4 ? 0x4355_534D : 0x4355_534E)
        for row in Self.table {
            let expected = h == 4 ? row.h4 : row.h5
            var lengths: [Double] = []
            for _ in 0..<3_000 {
                var cusum = CUSUM(k: 0.5, h: h)
                var index = 0
                while cusum.update(random.gaussian() + row.shift, index: index) == nil { index += 1 }
                lengths.append(Double(index + 1))
            }
            let mean = lengths.reduce(0, +) / Double(lengths.count)
            let sd = (lengths.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(lengths.count - 1))
                .squareRoot()
            let error = sd / Double(lengths.count).squareRoot()
            #expect(abs(mean - expected) < 4 * error + 0.02, "shift \(row.shift), h \(h): \(mean) vs \(expected)")
        }
    }
}
