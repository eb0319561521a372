import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

@Suite("Venue-local weekday and hour, through aggregation")
struct LocalTimeAggregationTests {
    /// Stores one 300-second check-in and recomputes its venue; returns the venue's cells as
    /// weekday-hour → valid seconds of the check-in in that hour.
    private func aggregate(
        venue: String, timezone: String?, start epoch: Double, utcOffsetsMinutes: [Int16] = [0],
        client: PostgresClient
    ) async throws -> [LocalHour: Int] {
        let submission = SubmissionFixture.submission(
            venue: venue, timezone: timezone, device: "dst-device", levelDBFS: -40,
            start: Date(timeIntervalSince1970: epoch), utcOffsetsMinutes: utcOffsetsMinutes)
        let engine = Engine.testing(client)
        _ = try await engine.intake.submit(submission)
        #expect(try await engine.recomputation().venue(externalID: venue))
        let key = try #require(try await engine.venues.find(externalID: venue)).id
        let cells = try await engine.loudness.cells(venueID: key, bands: engine.loudness.currentBands())
        let rows = try await client.query(
            "SELECT weekday, hour, valid_seconds FROM checkin_hours WHERE venue_id = \(key)",
            logger: EngineTestApp.logger)
        var seconds: [LocalHour: Int] = [:]
        for try await (weekday, hour, valid) in rows.decode((Int16, Int16, Int32).self) {
            seconds[LocalHour(weekday: Int(weekday), hour: Int(hour))] = Int(valid)
        }
        #expect(Set(cells.map { $0.localHour }) == Set(seconds.keys))
        return seconds
    }

    // Epochs checked with python3 zoneinfo (see VenueClockTests); all four changes fall on a Sunday.

    @Test func sydneyFallBackKeepsTheRepeatedHourInOneCell() async throws {
        try await withTestDatabase { client, _ in
            // 2026-04-05 02:58 AEDT + 300 s ends at 02:02:59 AEST.
            let cells = try await aggregate(
                venue: "syd-april", timezone: "Australia/Sydney", start: 1_775_318_280, client: client)
            #expect(cells == [LocalHour(weekday: 7, hour: 2): 300])
        }
    }

    @Test func sydneySpringForwardSkipsTwoOClock() async throws {
        try await withTestDatabase { client, _ in
            // 2026-10-04 01:58 AEST + 300 s: 120 s at 1:00, then 3:00 AEDT.
            let cells = try await aggregate(
                venue: "syd-october", timezone: "Australia/Sydney", start: 1_791_043_080, client: client)
            #expect(cells == [LocalHour(weekday: 7, hour: 1): 120, LocalHour(weekday: 7, hour: 3): 180])
        }
    }

    @Test func newYorkSpringForwardSkipsTwoOClock() async throws {
        try await withTestDatabase { client, _ in
            // 2026-03-08 01:58 EST + 300 s.
            let cells = try await aggregate(
                venue: "nyc-march", timezone: "America/New_York", start: 1_772_953_080, client: client)
            #expect(cells == [LocalHour(weekday: 7, hour: 1): 120, LocalHour(weekday: 7, hour: 3): 180])
        }
    }

    @Test func newYorkFallBackKeepsTheRepeatedHourInOneCell() async throws {
        try await withTestDatabase { client, _ in
            // 2026-11-01 01:58 EDT + 300 s ends at 01:02:59 EST.
            let cells = try await aggregate(
                venue: "nyc-november", timezone: "America/New_York", start: 1_793_512_680, client: client)
            #expect(cells == [LocalHour(weekday: 7, hour: 1): 300])
        }
    }

    @Test func withoutAZoneEachSamplesOwnOffsetDecides() async throws {
        try await withTestDatabase { client, _ in
            // python3: 1794866280 is 2026-11-16 21:58 UTC (a Monday); sent at +11:00 it is Tuesday 08:58.
            let cells = try await aggregate(
                venue: "no-zone", timezone: nil, start: 1_794_866_280, utcOffsetsMinutes: [660], client: client)
            #expect(cells == [LocalHour(weekday: 2, hour: 8): 120, LocalHour(weekday: 2, hour: 9): 180])
        }
    }

    @Test func aCheckinAcrossMidnightSundayToMondayCountsInBothHours() async throws {
        try await EngineTestApp.run { client, _ in
            // The most recent Sunday 23:58 UTC at least 10 minutes ago: inside the 14-day window.
            let now = Date().timeIntervalSince1970
            var start = (now / 86_400).rounded(.down) * 86_400 + 86_280
            while start + 300 > now - 600 || LocalHour(localSecondsSinceEpoch: start).weekday != 7 {
                start -= 86_400
            }
            let checkin = CheckinFixture(
                venue: "midnight", timezone: "UTC", device: "night-owl-01", levelDBFS: -40,
                start: Date(timeIntervalSince1970: start), seconds: 240)

            #expect(try await checkin.submit(to: client) == .created)
            let grid = try await eventually("the grid") {
                try await JSONProbe.get("/api/v2/venues/midnight/loudness", from: client)
            }

            let days = grid["days"] as? [[String: Any]] ?? []
            #expect(days.map { $0["day"] as? String } == ["monday", "sunday"])
            #expect(JSONProbe.cell(grid, day: "sunday", hour: 23)?["checkins"] as? Int == 1)
            #expect(JSONProbe.cell(grid, day: "monday", hour: 0)?["checkins"] as? Int == 1)
        }
    }
}
