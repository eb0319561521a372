import Foundation
import LoudnessCore
import Testing

@Suite("Venue-local time")
struct VenueClockTests {
    private let sydney = VenueClock(timeZoneIdentifier: "Australia/Sydney")!
    private let newYork = VenueClock(timeZoneIdentifier: "America/New_York")!

    /// Counts of seconds per local hour for a check-in of `seconds` one-second samples.
    private func buckets(_ clock: VenueClock, start epoch: Double, seconds: Int) -> [LocalHour: Int] {
        let hours = clock.localHours(
            start: Date(timeIntervalSince1970: epoch), offsetsSeconds: (0..<seconds).map(Double.init))
        return hours.reduce(into: [:]) { counts, hour in counts[hour, default: 0] += 1 }
    }

    private func hour(_ clock: VenueClock, _ epoch: Double) -> LocalHour {
        clock.localHour(at: Date(timeIntervalSince1970: epoch))
    }

    @Test func sydneyFallsBackOnFifthOfApril() {
        // python3: datetime.fromtimestamp(t, ZoneInfo("Australia/Sydney")) for t in
        // 1775318399 → 2026-04-05 02:59:59+11:00, 1775318400 → 02:00:00+10:00,
        // 1775321999 → 02:59:59+10:00, 1775322000 → 03:00:00+10:00; isoweekday() == 7
        #expect(hour(sydney, 1_775_318_399) == LocalHour(weekday: 7, hour: 2))
        #expect(hour(sydney, 1_775_318_400) == LocalHour(weekday: 7, hour: 2))
        #expect(hour(sydney, 1_775_321_999) == LocalHour(weekday: 7, hour: 2))
        #expect(hour(sydney, 1_775_322_000) == LocalHour(weekday: 7, hour: 3))
        // 02:58 AEDT + 300 s ends 02:02:59 AEST: the repeated hour is one bucket.
        #expect(
            buckets(sydney, start: 1_775_318_280, seconds: 300) == [LocalHour(weekday: 7, hour: 2): 300])
        // 02:58 AEST + 300 s crosses into 03:00.
        #expect(
            buckets(sydney, start: 1_775_321_880, seconds: 300)
                == [LocalHour(weekday: 7, hour: 2): 120, LocalHour(weekday: 7, hour: 3): 180])
    }

    @Test func sydneySpringsForwardOnFourthOfOctober() {
        // python3: 1791043199 → 2026-10-04 01:59:59+10:00, 1791043200 → 03:00:00+11:00 (Sunday)
        #expect(hour(sydney, 1_791_043_199) == LocalHour(weekday: 7, hour: 1))
        #expect(hour(sydney, 1_791_043_200) == LocalHour(weekday: 7, hour: 3))
        #expect(
            buckets(sydney, start: 1_791_043_080, seconds: 300)
                == [LocalHour(weekday: 7, hour: 1): 120, LocalHour(weekday: 7, hour: 3): 180])
    }

    @Test func newYorkSpringsForwardOnEighthOfMarch() {
        // python3: 1772953199 → 2026-03-08 01:59:59-05:00, 1772953200 → 03:00:00-04:00 (Sunday)
        #expect(hour(newYork, 1_772_953_199) == LocalHour(weekday: 7, hour: 1))
        #expect(hour(newYork, 1_772_953_200) == LocalHour(weekday: 7, hour: 3))
        #expect(
            buckets(newYork, start: 1_772_953_080, seconds: 300)
                == [LocalHour(weekday: 7, hour: 1): 120, LocalHour(weekday: 7, hour: 3): 180])
    }

    @Test func newYorkFallsBackOnFirstOfNovember() {
        // python3: 1793512799 → 2026-11-01 01:59:59-04:00, 1793512800 → 01:00:00-05:00,
        // 1793516400 → 02:00:00-05:00 (Sunday)
        #expect(hour(newYork, 1_793_512_799) == LocalHour(weekday: 7, hour: 1))
        #expect(hour(newYork, 1_793_512_800) == LocalHour(weekday: 7, hour: 1))
        #expect(hour(newYork, 1_793_516_400) == LocalHour(weekday: 7, hour: 2))
        #expect(
            buckets(newYork, start: 1_793_512_680, seconds: 300) == [LocalHour(weekday: 7, hour: 1): 300])
        #expect(
            buckets(newYork, start: 1_793_516_280, seconds: 300)
                == [LocalHour(weekday: 7, hour: 1): 120, LocalHour(weekday: 7, hour: 2): 180])
    }

    @Test func sundayNightIntoMonday() {
        // python3: 1795352280 → 2026-11-22 23:58:00+11:00, isoweekday() == 7
        #expect(
            buckets(sydney, start: 1_795_352_280, seconds: 300)
                == [LocalHour(weekday: 7, hour: 23): 120, LocalHour(weekday: 1, hour: 0): 180])
    }

    @Test func fixedOffsetFallback() {
        // python3: 1767292199 → 2026-01-01 23:59:59+05:30 (Asia/Kolkata), isoweekday() == 4
        let india = VenueClock(utcOffsetMinutes: 330)
        #expect(hour(india, 1_767_292_199) == LocalHour(weekday: 4, hour: 23))
        #expect(hour(india, 1_767_292_200) == LocalHour(weekday: 5, hour: 0))
        let date = Date(timeIntervalSince1970: 1_767_292_199)
        #expect(
            VenueClock.localHour(at: date, utcOffsetMinutes: 330) == LocalHour(weekday: 4, hour: 23))
        #expect(
            VenueClock.localHour(at: date, utcOffsetMinutes: -300) == LocalHour(weekday: 4, hour: 13))
    }

    @Test func unknownZoneIsRefused() {
        #expect(VenueClock(timeZoneIdentifier: "Mars/Olympus_Mons") == nil)
    }

    @Test func weekdayNames() {
        #expect(LocalHour(weekday: 1, hour: 0).weekdayName == "monday")
        #expect(LocalHour(weekday: 7, hour: 23).description == "sunday 23:00")
        #expect(LocalHour(weekday: 1, hour: 5) < LocalHour(weekday: 2, hour: 0))
    }
}
