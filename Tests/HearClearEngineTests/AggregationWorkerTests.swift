import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import PostgresNIO
import Testing

@testable import HearClearEngine

@Suite("Aggregation workers")
struct AggregationWorkerTests {
    private func count(_ sql: PostgresQuery, on client: PostgresClient) async throws -> Int {
        for try await count in try await client.query(sql, logger: engineTestLogger).decode(Int.self) {
            return count
        }
        return 0
    }

    /// Waits until `workers` connections LISTEN for the queue's notifications on this database:
    /// from then on only NOTIFY (or the poll, ten minutes away) wakes them.
    private func listening(_ workers: Int, on client: PostgresClient) async throws {
        _ = try await eventually("\(workers) workers listening") {
            let listening = try await count(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE query LIKE 'LISTEN%\(unescaped: AggregationQueue.channel)%' AND datname = current_database()
                """, on: client)
            return listening == workers ? true : nil
        }
    }

    /// Runs `workers` aggregation workers (with a poll too slow to matter) around `body`.
    private func withWorkers(
        _ workers: Int, client: PostgresClient, _ body: () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    try await AggregationWorker(
                        client: client, logger: engineTestLogger, pollInterval: .seconds(600)
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
            let repository = CheckinRepository(client: client, logger: engineTestLogger)
            let start = SubmissionFixture.previousHourStart

            try await withWorkers(2, client: client) {
                try await listening(2, on: client)
                for venue in 0..<10 {
                    for device in 0..<3 {
                        let submission = SubmissionFixture.submission(
                            venue: "v\(venue)", timezone: "Europe/Paris", device: "v\(venue)-device-\(device)",
                            levelDBFS: -40 - Double(device), start: start, seconds: 60)
                        _ = try await repository.ingest(submission, maxDistanceMetres: 250)
                    }
                }
                _ = try await eventually("every check-in judged") {
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

    @Test("two workers, each remembering what it judged, write what one full read of each venue writes")
    func twoRememberingWorkersAgreeWithAFullRead() async throws {
        try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: engineTestLogger)
            let start = SubmissionFixture.previousHourStart

            try await withWorkers(2, client: client) {
                try await listening(2, on: client)
                // Waves of check-ins to the same venues, so that each venue is judged again and
                // again, by either worker, from memory or (after the other's write) in full.
                for wave in 0..<6 {
                    for venue in 0..<4 {
                        for device in 0..<2 {
                            let junk = wave == 3 && device == 1
                            let submission = SubmissionFixture.submission(
                                venue: "w\(venue)", timezone: "Europe/Paris",
                                device: "w\(venue)-device-\(wave)-\(device)",
                                levelDBFS: junk ? -8 : -40 - Double(device) + Double(wave % 3) * 0.5,
                                start: start.addingTimeInterval(Double(wave) * 240), seconds: 60)
                            _ = try await repository.ingest(submission, maxDistanceMetres: 250)
                        }
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                _ = try await eventually("every check-in judged") {
                    let pending = try await count("SELECT count(*) FROM checkins WHERE status = 'pending'", on: client)
                    let queued = try await count("SELECT count(*) FROM aggregation_queue", on: client)
                    return pending == 0 && queued == 0 ? true : nil
                }
            }

            let queue = AggregationQueue(client: client, logger: engineTestLogger)
            let fullRead = Aggregator(client: client, logger: engineTestLogger, memoryCapacity: 0)
            for venue in 0..<4 {
                let key = try #require(try await queue.venueKey(externalID: "w\(venue)"))
                let written = try await JudgementSnapshot.of(key, on: client)
                try await fullRead.recompute(venueID: key)
                #expect(try await JudgementSnapshot.of(key, on: client) == written, "venue w\(venue)")
            }
            #expect(try await count("SELECT count(*) FROM checkins WHERE status = 'outlier'", on: client) == 4)
        }
    }
}
