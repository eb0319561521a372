import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// A phone cannot be at two venues at once: a check-in overlapping in time one of the same device
/// at another venue is stored, excluded as `elsewhere_meanwhile`, and stays so when judged.
@Suite("Impossible check-ins")
struct ElsewhereMeanwhileTests {
    let logger = engineTestLogger
    /// 2026-11-18 10:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_794_996_000)

    func receipt(_ outcome: IngestOutcome) -> CheckinReceipt? {
        switch outcome {
        case .created(let receipt), .duplicate(let receipt): receipt
        case .conflict: nil
        }
    }

    @Test("overlapping at another venue: excluded; at the same venue or after it ended: not")
    func overlap() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: logger)
            func submit(_ venue: String, device: String = "phone", offset: Double, seconds: Int = 300) async throws
                -> CheckinReceipt?
            {
                let submission = SubmissionFixture.submission(
                    venue: venue, timezone: nil, device: device, levelDBFS: -40,
                    start: Self.start.addingTimeInterval(offset), seconds: seconds)
                return receipt(try await checkins.ingest(submission, maxDistanceMetres: 250))
            }
            // 10:00:00–10:04:59 at the pub.
            let first = try #require(try await submit("pub", offset: 0))
            #expect(first.status == .pending && first.reasons.isEmpty)
            // 10:03–10:07 at the café: overlaps by two minutes.
            let clash = try #require(try await submit("cafe", offset: 180))
            #expect(clash.status == .excluded)
            #expect(clash.reasons == [.elsewhereMeanwhile])
            // At the pub again, overlapping the first and the café's: the same venue as the first,
            // and the café's, already excluded, is no evidence: not this reason.
            #expect(try await submit("pub", offset: 120)?.reasons.contains(.elsewhereMeanwhile) == false)
            // At the café once the pub's check-ins have ended (10:10): nothing overlaps.
            #expect(try await submit("cafe", offset: 600)?.status == .pending)
            // Another device at the café meanwhile: nothing to do with it.
            #expect(try await submit("cafe", device: "other-phone", offset: 60)?.status == .pending)

            // Judged: the clash stays excluded with its reason; the first is judged normally.
            let aggregator = Aggregator(client: client, logger: logger)
            while !(try await aggregator.processNext(limit: 8).isEmpty) {}
            let rows = try await client.query(
                "SELECT id, status, COALESCE(reasons, '{}') FROM checkins WHERE id = \(clash.id) OR id = \(first.id)",
                logger: logger)
            var judged: [UUID: (String, [String])] = [:]
            for try await (id, status, reasons) in rows.decode((UUID, String, [String]).self) {
                judged[id] = (status, reasons)
            }
            #expect(judged[clash.id]?.0 == "excluded")
            #expect(judged[clash.id]?.1 == ["elsewhere_meanwhile"])
            #expect(judged[first.id]?.0 != "excluded")
        }
    }
}
