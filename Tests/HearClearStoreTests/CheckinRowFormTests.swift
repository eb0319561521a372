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

    /// A 300-second check-in at `venue` (no zone) starting 29 March 2026 (a clock change in
    /// Europe) with these UTC offsets.
    static func submission(venue: String, device: String, offsets: [Int16]) -> CheckinSubmission {
        SubmissionFixture.submission(
            venue: venue, timezone: nil, device: device, levelDBFS: -30,
            start: CheckinPartitionTests.date("2026-03-29T00:00:00Z"), utcOffsetsMinutes: offsets)
    }

    /// Ingests each, expecting it to be created (`.created`) or, when `again`, found the same.
    static func ingest(_ submissions: [CheckinSubmission], again: Bool = false, into checkins: CheckinRepository)
        async throws
    {
        for submission in submissions {
            switch try await checkins.ingest(submission, maxDistanceMetres: 250) {
            case .created: #expect(!again, "a resend stored a new check-in")
            case .duplicate: #expect(again, "a new check-in was taken for a resend")
            default: Issue.record("neither stored nor found the same")
            }
        }
    }

    @Test("each form is written as meant and reads back as sent; a resend is the same check-in")
    func newRows() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            // One offset (UTC+1) for the whole check-in; nothing to say at receipt.
            let steady = Self.submission(venue: "forms", device: "phone-1", offsets: [60])
            // An offset that changes within the check-in (a clock change): one per sample.
            let changing: [Int16] = Array(repeating: 60, count: 150) + Array(repeating: 120, count: 150)
            let moving = Self.submission(venue: "forms", device: "phone-2", offsets: changing)
            try await Self.ingest([steady, moving], into: checkins)

            #expect(try await Self.forms(of: steady.id, client) == ["60", nil, nil, nil])
            let movingForms = try await Self.forms(of: moving.id, client)
            #expect(movingForms.first == .some(nil))
            #expect(movingForms[1] == "{" + changing.map(String.init).joined(separator: ",") + "}")

            let readSteady = try #require(try await checkins.find(id: steady.id))
            #expect(readSteady.utcOffsetsMinutes == [60])
            #expect(readSteady.reasons.isEmpty && readSteady.receipt.reasons.isEmpty)
            #expect(try #require(try await checkins.find(id: moving.id)).utcOffsetsMinutes == changing)
            try await Self.ingest([steady, moving], again: true, into: checkins)
        }
    }

    @Test("a row of before 0024 (one-element array, '{}' reasons) reads as it did, for the API and for the worker")
    func olderRows() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let new = Self.submission(venue: "older", device: "phone-1", offsets: [60])
            let old = Self.submission(venue: "older", device: "phone-2", offsets: [60])
            try await Self.ingest([new, old], into: checkins)
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
            try await Self.ingest([old], again: true, into: checkins)

            // The worker reads both forms the same: the same offsets for its local hours, the same
            // empty reasons from receipt.
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
