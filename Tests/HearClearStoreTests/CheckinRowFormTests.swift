import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearStore

/// The slimmer row of migration 0024: one UTC offset for a whole check-in is a `smallint`, only
/// offsets that change an array, and no reasons are NULL; rows written before keep the old forms.
/// Whatever the form, a check-in reads back as it was sent and a resend still finds it the same.
@Suite("Check-in rows: one offset a smallint, no reasons NULL, older rows read alike")
struct CheckinRowFormTests {
    static let logger = Logger(label: "test")

    /// The stored forms of a check-in's offsets and reasons, as text.
    static func forms(of id: UUID, _ client: PostgresClient) async throws -> [String?] {
        let rows = try await client.query(
            """
            SELECT utc_offset_min::text, utc_offsets_min::text, reasons::text, receipt_reasons::text
            FROM checkins WHERE id = \(id)
            """,
            logger: logger)
        for try await (single, array, reasons, receipt) in rows.decode((String?, String?, String?, String?).self) {
            return [single, array, reasons, receipt]
        }
        return []
    }

    @Test("each form is written as meant and reads back as sent; a resend is the same check-in")
    func newRows() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let start = CheckinPartitionTests.date("2026-03-29T00:00:00Z")
            // One offset (UTC+1) for the whole check-in; nothing to say at receipt.
            var steady = SubmissionFixture.submission(
                venue: "forms", timezone: nil, device: "phone-1", levelDBFS: -30, start: start,
                utcOffsetsMinutes: [60])
            steady.id = UUID()
            // An offset that changes within the check-in (a clock change): one per sample.
            let changing: [Int16] = Array(repeating: 60, count: 150) + Array(repeating: 120, count: 150)
            var moving = SubmissionFixture.submission(
                venue: "forms", timezone: nil, device: "phone-2", levelDBFS: -30, start: start,
                utcOffsetsMinutes: changing)
            moving.id = UUID()
            for submission in [steady, moving] {
                guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                    Issue.record("not created")
                    return
                }
            }

            #expect(try await Self.forms(of: steady.id, client) == ["60", nil, nil, nil])
            let movingForms = try await Self.forms(of: moving.id, client)
            #expect(movingForms.first == .some(nil))
            #expect(movingForms[1] == "{" + changing.map(String.init).joined(separator: ",") + "}")

            let readSteady = try #require(try await checkins.find(id: steady.id))
            #expect(readSteady.utcOffsetsMinutes == [60])
            #expect(readSteady.reasons.isEmpty && readSteady.receipt.reasons.isEmpty)
            #expect(try #require(try await checkins.find(id: moving.id)).utcOffsetsMinutes == changing)
            for submission in [steady, moving] {
                guard case .duplicate = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                    Issue.record("a resend is not the same check-in")
                    return
                }
            }
        }
    }

    @Test("a row of before 0024 (one-element array, '{}' reasons) reads as it did and is judged alike")
    func olderRows() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let start = CheckinPartitionTests.date("2026-03-29T00:00:00Z")
            var new = SubmissionFixture.submission(
                venue: "older", timezone: nil, device: "phone-1", levelDBFS: -30, start: start,
                utcOffsetsMinutes: [60])
            new.id = UUID()
            var old = new
            old.id = UUID()
            old.deviceID = "phone-2"
            for submission in [new, old] {
                guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                    Issue.record("not created")
                    return
                }
            }
            // As a server of before 0024 wrote it.
            try await client.query(
                """
                UPDATE checkins SET utc_offset_min = NULL, utc_offsets_min = '{60}', reasons = '{}',
                                    receipt_reasons = '{}'
                WHERE id = \(old.id)
                """,
                logger: Self.logger)
            #expect(try await Self.forms(of: old.id, client) == [nil, "{60}", "{}", "{}"])

            let readOld = try #require(try await checkins.find(id: old.id))
            let readNew = try #require(try await checkins.find(id: new.id))
            #expect(readOld.utcOffsetsMinutes == readNew.utcOffsetsMinutes)
            #expect(readOld.reasons == readNew.reasons && readOld.receipt.reasons == readNew.receipt.reasons)
            guard case .duplicate = try await checkins.ingest(old, maxDistanceMetres: 250) else {
                Issue.record("a resend of an older row is not the same check-in")
                return
            }

            // The worker reads both forms the same: the two check-ins, alike but for the device,
            // are judged alike.
            let venueID = try #require(
                try await client.query("SELECT venue_id FROM checkins WHERE id = \(old.id)", logger: Self.logger)
                    .decode(Int64.self).first { _ in true })
            let read = try await AggregationRepository(logger: Self.logger).checkinsForTest(
                venueID: venueID, client: client)
            let raws = read.compactMap(\.raw)
            #expect(raws.count == 2)
            #expect(raws.first?.utcOffsetsMinutes == [60] && raws.last?.utcOffsetsMinutes == [60])
            #expect(read.allSatisfy { $0.receiptReasons.isEmpty })
        }
    }
}

extension AggregationRepository {
    /// A venue's check-ins as the worker reads them in full, on a connection of its own.
    fileprivate func checkinsForTest(venueID: Int64, client: PostgresClient) async throws
        -> [AggregationInput.Checkin]
    {
        try await client.withConnection { connection in
            try await checkins(venueIDs: [venueID], on: connection)[venueID] ?? []
        }
    }
}
