import Foundation
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

/// A check-in of a month dropped by `hearclear months drop` sent again (docs/ARCHITECTURE.md,
/// "Check-ins by month"): its id is gone from `checkin_ids`, but the API refuses it as too old.
@Suite("A dropped month's check-in sent again")
struct DroppedMonthResendTests {
    @Test("is refused by the API as more than 14 days old, and stores nothing")
    func refused() async throws {
        try await withRouterApp { client, database in
            let start = UTCMonth(containing: Date().addingTimeInterval(-200 * 86_400)).start.addingTimeInterval(
                3 * 86_400 + 19 * 3_600)
            let month = UTCMonth(containing: start)
            let submission = SubmissionFixture.submission(
                venue: Fixture.venueID, timezone: "UTC", device: "dropped-month-phone", levelDBFS: -31, start: start,
                seconds: 30)
            let engine = Engine.testing(database)
            let outcome = try await engine.intake.submit(submission)
            guard case .created = outcome else {
                Issue.record("\(outcome)")
                return
            }
            let drops = try await engine.months.drop(before: month.adding(months: 1), by: "operator")
            #expect(drops.map(\.checkins) == [1])
            #expect(try await database.count("checkin_ids") == 0)

            let response = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders,
                body: Fixture.bytes(Fixture.checkin(id: submission.id, count: 30, start: start)))
            #expect(response.status == .unprocessableContent, "\(String(buffer: response.body).prefix(400))")
            #expect(String(buffer: response.body).contains("more than 14 days old"))
            #expect(try await database.count("checkins") == 0)
            #expect(try await database.count("checkin_ids") == 0)
        }
    }
}
