import Foundation
import LoudnessCore
import Testing

/// Checks the clock's per-hour cached arithmetic against Foundation's Gregorian `Calendar`.
@Suite("Venue-local time agrees with Calendar")
struct VenueClockCalendarTests {
    private static let zones = [
        "Australia/Sydney", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu",
        "Pacific/Chatham", "Europe/London", "UTC",
    ]

    private func calendarHour(_ calendar: Calendar, _ epoch: Double) -> LocalHour {
        let parts = calendar.dateComponents(
            [.weekday, .hour], from: Date(timeIntervalSince1970: epoch))
        // Calendar's weekday is 1 = Sunday … 7 = Saturday.
        return LocalHour(weekday: (parts.weekday! + 5) % 7 + 1, hour: parts.hour!)
    }

    /// Check-in starts: every 6 h 7 min through 2026, and around each of the zone's transitions.
    private func starts(in zone: TimeZone) -> (grid: [Double], transitions: [Double]) {
        let from = 1_767_225_600.0  // 2026-01-01T00:00:00Z
        let until = 1_798_761_600.0  // 2027-01-01T00:00:00Z
        let grid = Array(stride(from: from, to: until, by: 22_020))
        var transitions: [Double] = []
        var cursor = Date(timeIntervalSince1970: from)
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor),
            next.timeIntervalSince1970 < until
        {
            let instant = next.timeIntervalSince1970
            transitions += [-3_700, -1_900, -150, -1, 0, 1].map { instant + $0 }
            cursor = next
        }
        return (grid, transitions)
    }

    @Test(arguments: zones)
    func agreesWithCalendar(identifier: String) throws {
        let zone = try #require(TimeZone(identifier: identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let clock = VenueClock(timeZone: zone)
        let (grid, transitions) = starts(in: zone)
        let everySecond = (0..<300).map(Double.init)
        let sparse = Array(stride(from: 0.0, to: 300, by: 37))
        // Kathmandu (+05:45) and UTC have no DST; every other zone here changes twice in 2026.
        #expect(transitions.count == (["UTC", "Asia/Kathmandu"].contains(identifier) ? 0 : 12))

        for (start, offsets) in grid.map({ ($0, sparse) }) + transitions.map({ ($0, everySecond) }) {
            let hours = clock.localHours(
                start: Date(timeIntervalSince1970: start), offsetsSeconds: offsets)
            let expected = offsets.map { calendarHour(calendar, start + $0) }
            #expect(hours == expected, "check-in starting at \(start) in \(identifier)")
        }
    }
}
