import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Synchronization
import Testing

/// Every way a venue gets queued goes through ``AggregationQueue``'s one statement: an entry in
/// `aggregation_queue` and a NOTIFY on its channel naming the venue, sent when the writer commits.
@Suite("Queueing a venue: one statement, one channel")
struct QueueNotificationTests {
    let logger = QueueFixtures.logger

    /// LISTENs on the queue's channel while `body` runs, and returns the payloads once `expected`
    /// of them have arrived.
    private func payloads(
        on client: PostgresClient, expected: Int, during body: () async throws -> Void
    ) async throws -> [String] {
        let received = Received()
        let (listening, ready) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    try await connection.listen(on: AggregationQueue.channel) { notifications in
                        ready.yield()
                        for try await notification in notifications {
                            received.payloads.withLock { $0.append(notification.payload) }
                        }
                    }
                }
            }
            for await _ in listening { break }
            try await body()
            let payloads = try await eventually("\(expected) notifications") {
                received.payloads.withLock { $0.count >= expected ? $0 : nil }
            }
            group.cancelAll()
            return payloads
        }
    }

    private final class Received: Sendable {
        let payloads = Mutex<[String]>([])
    }

    private func entries(_ venueID: Int64, on client: PostgresClient) async throws -> [Bool] {
        let rows = try await client.query(
            "SELECT checkins_only FROM aggregation_queue WHERE venue_id = \(venueID) ORDER BY id", logger: logger)
        var flags: [Bool] = []
        for try await flag in rows.decode(Bool.self) { flags.append(flag) }
        return flags
    }

    @Test("ingest, a venue's new time zone, a device's exclusion and a direct enqueue each queue and notify")
    func everyPathNotifies() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: logger)
            let checkins = CheckinRepository(client: client, logger: logger)
            let submission = SubmissionFixture.submission(
                venue: "n1", timezone: "UTC", device: "phone-n1", levelDBFS: -30,
                start: SubmissionFixture.previousHourStart)
            let pending = IntakeRule.Verdict(status: .pending, reasons: [], distanceMetres: nil)

            // Ingest: the check-in and its queue entry (checkins only) in one statement.
            let afterIngest = try await payloads(on: client, expected: 1) {
                _ = try await checkins.ingest(submission) { _ in pending }
            }
            let venueID = try #require(try await queue.venueKey(externalID: "n1"))
            #expect(afterIngest == ["\(venueID)"])
            #expect(try await entries(venueID, on: client) == [true])

            // A direct enqueue; a time-zone change of a venue whose check-ins were cleaned; an
            // exclusion of its device. None of them is "checkins only".
            try await client.query("UPDATE checkins SET cleaned_at = now()", logger: logger)
            let others = try await payloads(on: client, expected: 3) {
                try await queue.enqueue(venueID: venueID)
                _ = try await VenueRepository(client: client, logger: logger).upsert(
                    externalID: "n1",
                    details: VenueDetails(name: "Venue n1", latitude: 0, longitude: 0, timezone: "Europe/Paris"))
                let change = try await DeviceAdministration(client: client, logger: logger).setExcluded(
                    "phone-n1", clientID: "phone-n1", excluded: true)
                guard case .changed(_, venues: 1) = change else {
                    Issue.record("device exclusion did not queue its one venue: \(change)")
                    return
                }
            }
            #expect(others == Array(repeating: "\(venueID)", count: 3))
            #expect(try await entries(venueID, on: client) == [true, false, false, false])
            #expect(try await client.count("checkins", where: "cleaned_at IS NULL") == 1, "the new zone forgot it")
        }
    }

    @Test("a time-zone change with nothing cleaned, or a detail change, queues nothing")
    func unchangedZoneQueuesNothing() async throws {
        try await withTestDatabase { client, _ in
            let venues = VenueRepository(client: client, logger: logger)
            let details = VenueDetails(name: "Quiet", latitude: 1, longitude: 2, timezone: "UTC")
            let (created, wasCreated) = try await venues.upsert(externalID: "n2", details: details)
            #expect(wasCreated)
            var renamed = details
            renamed.name = "Quieter"
            let (updated, createdAgain) = try await venues.upsert(externalID: "n2", details: renamed)
            #expect(!createdAgain)
            #expect(updated.id == created.id && updated.name == "Quieter")
            renamed.timezone = "Asia/Tokyo"
            _ = try await venues.upsert(externalID: "n2", details: renamed)
            #expect(try await client.count("aggregation_queue") == 0)
        }
    }

    @Test("creating a venue that exists leaves it as it is")
    func createIfMissingNeverChanges() async throws {
        try await withTestDatabase { client, _ in
            let venues = VenueRepository(client: client, logger: logger)
            let first = try await venues.createIfMissing(
                externalID: "n3", details: VenueDetails(name: "First", latitude: 1, longitude: 2))
            let again = try await venues.createIfMissing(
                externalID: "n3", details: VenueDetails(name: "Second", latitude: 3, longitude: 4, timezone: "UTC"))
            #expect(again == first)
            #expect(try await client.count("venues") == 1)
        }
    }

    @Test("queueing every venue sends one notification, not one per venue")
    func enqueueAllNotifiesOnce() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: logger)
            let pending = IntakeRule.Verdict(status: .pending, reasons: [], distanceMetres: nil)
            for index in 0..<3 {
                let submission = SubmissionFixture.submission(
                    venue: "all\(index)", timezone: nil, device: "d\(index)", levelDBFS: -30,
                    start: SubmissionFixture.previousHourStart)
                _ = try await checkins.ingest(submission) { _ in pending }
            }
            try await client.query("DELETE FROM aggregation_queue", logger: logger)
            let queue = AggregationQueue(client: client, logger: logger)
            var queued = 0
            let received = try await payloads(on: client, expected: 1) { queued = try await queue.enqueueAll() }
            #expect(queued == 3)
            #expect(received == ["*"])
            #expect(try await queue.pendingVenueCount() == 3)
        }
    }
}
