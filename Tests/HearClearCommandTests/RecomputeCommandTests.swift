import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `hearclear recompute`, the process an operator runs after a change of method.
@Suite("hearclear recompute")
struct RecomputeCommandTests {
    @Test("cleans every check-in again and rebuilds every venue's cells, in batches")
    func rebuildsEverything() async throws {
        try await withTestDatabase { client, configuration in
            let engine = Engine.testing(client)
            for venue in 0..<3 {
                for device in 0..<3 {
                    let submission = SubmissionFixture.submission(
                        venue: "r\(venue)", timezone: "UTC", device: "device-\(device)",
                        levelDBFS: -40 - Double(venue) - Double(device) * 0.5,
                        start: SubmissionFixture.previousHourStart,
                        seconds: 60)
                    _ = try await engine.intake.submit(submission)
                }
            }
            _ = try await engine.recomputation().processQueued { _ in }
            let judged = try await cells(client)
            // A method change, as far as the stored results know: every level is wrong.
            try await client.query("UPDATE loudness_cells SET level_dbfs = 0")

            let url = try await HearClearCommand.databaseURL(configuration)
            let run = try await withScratchDirectory { scratch in
                try await HearClearCommand.run(
                    ["recompute", "--resources", TestCluster.repositoryRoot], scratch: scratch,
                    environment: ["DATABASE_URL": url])
            }

            #expect(run.status == 0, "stderr: \(run.errors)")
            #expect(run.output.contains("Recomputed 3 of 3 venue(s)."), "output: \(run.output)")
            #expect(try await cells(client) == judged)
            #expect(try await client.count("checkins", where: "cleaned_at IS NULL") == 0)
            #expect(try await client.count("aggregation_queue") == 0)
        }
    }

    /// Every cell's venue, weekday, hour and level, as text.
    func cells(_ client: PostgresClient) async throws -> [String] {
        let rows = try await client.query(
            """
            SELECT v.external_id || ' ' || l.weekday || ' ' || l.hour || ' ' || l.level_dbfs || ' ' || l.checkins
            FROM loudness_cells l JOIN venues v ON v.id = l.venue_id ORDER BY 1
            """)
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }
}
