import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// A device's erasure (``DeviceErasure``) lowers the check-in counts of its venues while check-ins
/// may be written there: it must lock those counts in the order ingest's statement does.
@Suite("A device's erasure beside ingest")
struct DeviceErasureLockTests {
    static let logger = Logger(label: "test")

    @Test("an erasure locks its venues' counts in the order of their ids, as a group of check-ins does")
    func countsLockedInOrder() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let start = SubmissionFixture.previousHourStart
            // One phone at 20 venues, ten minutes apart (no overlap).
            for index in 0..<20 {
                let submission = SubmissionFixture.submission(
                    venue: "erase-order-\(index)", timezone: "UTC", device: "erase-phone", levelDBFS: -30,
                    start: start.addingTimeInterval(Double(index - 40) * 600))
                guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                    throw StoreError.unexpected("check-in \(index) not created")
                }
            }
            var venueIDs: [Int64] = []
            for try await id in try await client.query(
                "SELECT venue_id FROM venue_counts ORDER BY venue_id", logger: Self.logger
            ).decode(Int64.self) {
                venueIDs.append(id)
            }
            try #require(venueIDs.count == 20)
            // The count rows rewritten out of order, so that a statement reading them as they lie
            // (or as a hash of its own gives them) does not meet them in the order of their ids.
            for id in venueIDs.shuffled() {
                try await client.query(
                    "UPDATE venue_counts SET checkins = checkins WHERE venue_id = \(id)", logger: Self.logger)
            }
            let held = venueIDs[9]

            // Another transaction holds the count of the 10th venue by id. Locking in order, the
            // erasure has by then locked the 9 below it and none above, as ingest would.
            let (free, erased) = try await IngestGroupTests.whileCountHeld(client, venue: held, probing: venueIDs) {
                try await DeviceErasure(client: client, logger: Self.logger).erase(keyedID: "erase-phone")
            }
            #expect(free == Array(venueIDs[10...]), "locked: \(Set(venueIDs).subtracting(free).sorted())")
            #expect(erased?.checkins == 20)
            #expect(try await client.count("venue_counts", where: "checkins = 0") == 20)
        }
    }
}
