import Foundation
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HearClearEngine

/// A venue's change of level (docs/ARCHITECTURE.md, "Venues that change") on the wire: v2 says
/// when it was detected, `changedAt`, null when none is in force; v1 answers as it always did.
@Suite("changedAt on v2, v1 unchanged")
struct ChangedAtTests {
    @Test func aChangeInForceIsServedOnV2OnlyAndADismissedOneIsNull() async throws {
        try await EngineTestApp.run { client, database in
            let start = SubmissionFixture.previousHourStart
            for (venue, device) in [("arms", "phone-one-0001"), ("crown", "phone-two-0002")] {
                try await CheckinFixture(venue: venue, device: device, levelDBFS: -35, start: start).submit(to: client)
            }
            _ = try await eventually("both judged") {
                try await database.count("loudness_cells") >= 2 ? true : nil
            }
            let v1Before = try #require(try await JSONProbe.get("/api/v1/venue/arms", from: client))
            // The Arms changed on 2026-11-20 at 21:00 UTC, detected the next day; the Crown never did.
            try await database.query(
                """
                INSERT INTO venue_changes (venue_id, changed_at, detected_at, status, shift_db, shifts_db, checkins_since)
                SELECT id, '2026-11-20T21:00:00Z', '2026-11-21T12:00:00Z', 'in_force', 6, array_fill(6::real, ARRAY[24]), 12
                FROM venues WHERE external_id = 'arms'
                """, logger: EngineTestApp.logger)
            // A new check-in at each venue: judged again, their answers are read afresh.
            for (venue, device) in [("arms", "phone-three-0003"), ("crown", "phone-four-0004")] {
                try await CheckinFixture(venue: venue, device: device, levelDBFS: -34, start: start).submit(to: client)
            }
            let arms = try await eventually("the Arms judged again") {
                let grid = try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client)
                return grid?["changedAt"] is String ? grid : nil
            }
            let armsVenue = try #require(try await JSONProbe.get("/api/v2/venues/arms", from: client))
            let hour = CheckinFixture(venue: "crown", device: "phone-two-0002", levelDBFS: -35, start: start).localHour
            let crown = try await eventually("the Crown judged again") {
                let grid = try await JSONProbe.get("/api/v2/venues/crown/loudness", from: client)
                let cell = grid.flatMap { JSONProbe.cell($0, day: hour.weekdayName, hour: hour.hour) }
                return cell?["checkins"] as? Int == 2 ? grid : nil
            }
            let crownVenue = try #require(try await JSONProbe.get("/api/v2/venues/crown", from: client))
            let v1After = try #require(try await JSONProbe.get("/api/v1/venue/arms", from: client))
            let v1Volume = try #require(try await JSONProbe.get("/api/v1/venue/arms/volume", from: client))

            #expect(arms["changedAt"] as? String == "2026-11-20T21:00:00Z")
            #expect(armsVenue["changedAt"] as? String == "2026-11-20T21:00:00Z")
            #expect(crown["changedAt"] is NSNull, "null, not absent, when none")
            #expect(crownVenue["changedAt"] is NSNull)
            // v1: the same keys as before the change, and no trace of it.
            #expect(Set(v1After.keys) == Set(v1Before.keys))
            for answer in [v1After, v1Volume] {
                let text = String(describing: answer)
                #expect(!text.contains("changed") && !text.contains("2026-11-20"))
            }

            // Dismissed: no change in force, null again once the venue is judged again.
            try await database.query(
                "UPDATE venue_changes SET status = 'dismissed', dismissed_at = now(), dismissed_by = 'admin'",
                logger: EngineTestApp.logger)
            try await CheckinFixture(venue: "arms", device: "phone-five-0005", levelDBFS: -36, start: start)
                .submit(to: client)
            _ = try await eventually("the dismissal served") {
                let grid = try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client)
                return grid?["changedAt"] is NSNull ? true : nil
            }
        }
    }
}
