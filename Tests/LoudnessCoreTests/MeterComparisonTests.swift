import Testing

@testable import LoudnessCore

@Suite("A phone's offset beside a sound level meter")
struct MeterComparisonTests {
    @Test func theOffsetIsTheMedianDifferenceOverSharedSeconds() throws {
        // 60 seconds: the meter reads 112 dB above the phone, −0.5 dB on even seconds and +0.5 on
        // odd ones, except seconds 50–54 where the phone caught a bump (+10 dBFS). Differences:
        // 27 × 111.5, 28 × 112.5 and 5 near 102: the bumps fall below, so the median is 111.5, and
        // the spread 1.4826 × 1.0 (by hand, and with Python's statistics.median over the same
        // differences: 111.5 and 1.4826). (A mean would be pulled 0.8 dB by the bumps.)
        var phone: [Int64: Double] = [:]
        var meter: [Int64: Double] = [:]
        for second in 0..<60 {
            let level = -40 + Double(second % 7)
            phone[1_000 + Int64(second)] = level + (second >= 50 && second < 55 ? 10 : 0)
            meter[1_000 + Int64(second)] = level + 112 + (second % 2 == 0 ? -0.5 : 0.5)
        }
        // Seconds only one of them has do not count.
        meter[5_000] = 0
        phone[6_000] = 0
        let result = try MeterComparison.offset(phone: phone, meter: meter).get()
        #expect(result.offsetDB == 111.5)
        #expect(result.seconds == 60)
        #expect(abs(result.spreadDB - 1.4826) < 1e-9)
    }

    @Test func tooFewSharedSecondsAreRefused() {
        let phone = Dictionary(uniqueKeysWithValues: (0..<40).map { (Int64($0), -40.0) })
        let meter = Dictionary(uniqueKeysWithValues: (20..<80).map { (Int64($0), 70.0) })
        #expect(MeterComparison.offset(phone: phone, meter: meter) == .failure(.tooFewSeconds(found: 20)))
    }

    @Test func aPhoneThatHeardSomethingElseIsRefused() throws {
        // Differences of 100 and 110 dB in turn: median 105, spread 1.4826 × 5 = 7.4 dB.
        let phone = Dictionary(uniqueKeysWithValues: (0..<40).map { (Int64($0), -40.0) })
        let meter = Dictionary(uniqueKeysWithValues: (0..<40).map { (Int64($0), $0 % 2 == 0 ? 60.0 : 70.0) })
        guard case .failure(.unsteady(let spread, let seconds)) = MeterComparison.offset(phone: phone, meter: meter)
        else {
            Issue.record("expected a refusal")
            return
        }
        #expect(seconds == 40)
        #expect(abs(spread - 7.413) < 1e-9)
    }
}
