import Foundation
import HearClearServer
import HearClearStore
import HearClearTestSupport
import PostgresNIO
import Testing

@Suite("Aggregation workers")
struct AggregationWorkerTests {
    private func count(_ sql: PostgresQuery, on client: PostgresClient) async throws -> Int {
        for try await count in try await client.query(sql, logger: EngineTestApp.logger).decode(Int.self) {
            return count
        }
        return 0
    }

    /// Runs `workers` aggregation workers (with a poll too slow to matter) around `body`.
    private func withWorkers(
        _ workers: Int, client: PostgresClient, _ body: () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    try await AggregationWorker(
                        client: client, logger: EngineTestApp.logger, pollInterval: .seconds(600)
                    )
                    .run()
                }
            }
            defer { group.cancelAll() }
            try await body()
        }
    }

    @Test func twoWorkersOnOneDatabaseJudgeEveryCheckinOnceWokenByNotify() async throws {
        try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: EngineTestApp.logger)
            let start = CheckinFixture.previousHourStart

            try await withWorkers(2, client: client) {
                // Give both workers time to LISTEN; from then on only NOTIFY can wake them.
                try await Task.sleep(for: .milliseconds(500))
                for venue in 0..<10 {
                    for device in 0..<3 {
                        let submission = SubmissionFixture.submission(
                            venue: "v\(venue)", timezone: "Europe/Paris", device: "device-\(device)",
                            levelDBFS: -40 - Double(device), start: start, seconds: 60)
                        _ = try await repository.ingest(submission, maxDistanceMetres: 250)
                    }
                }
                _ = try await EngineTestApp.eventually("every check-in judged") {
                    let pending = try await count("SELECT count(*) FROM checkins WHERE status = 'pending'", on: client)
                    let queued = try await count("SELECT count(*) FROM aggregation_queue", on: client)
                    return pending == 0 && queued == 0 ? true : nil
                }
            }

            #expect(try await count("SELECT count(*) FROM checkins WHERE status = 'included'", on: client) == 30)
            #expect(try await count("SELECT count(*) FROM loudness_cells WHERE checkins = 3", on: client) == 10)
            #expect(try await count("SELECT count(*) FROM checkin_hours", on: client) >= 30)
        }
    }
}
