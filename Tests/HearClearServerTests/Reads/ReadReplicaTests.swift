import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `DATABASE_READ_URL` for real: a hot standby of the test cluster (pg_basebackup -R, streaming
/// over Unix sockets) serves the reads that miss the cache.
@Suite("Read replica", .serialized)
struct ReadReplicaTests {
    static let logger = EngineTestApp.logger
    static let venue = "/api/v2/venues/arms"

    static func venueCheckins(_ client: some TestClientProtocol) async throws -> Int? {
        try await JSONProbe.get(venue, from: client)?["checkins"] as? Int
    }

    @Test("reads come from the replica, a new check-in shows once replayed, and a stopped replica falls back")
    func replicaServesReads() async throws {
        // A standby is a cluster of its own (copied, started, streaming): the test takes its turn
        // with the others that start clusters or servers, so that they do not starve one another.
        try await TestSlots.processes.withSlot { try await replicaServesReadsInTurn() }
    }

    func replicaServesReadsInTurn() async throws {
        try await withTestDatabase { database, primary in
            let replica = try await TestCluster.shared.replica()
            let name = try #require(primary.database)
            let replicaConfiguration = replica.configuration(database: name)
            // The new database exists on the standby once its creation is replayed.
            _ = try await eventually("the database on the replica") {
                try? await TestCluster.withClient(replicaConfiguration) { client in
                    try await client.count("venues")
                }
            }
            // Streaming, not only a copy (the database above came with it): a standby that never
            // connects to the primary is named here rather than as a stale read below.
            _ = try await eventually("the replica streaming from the primary") {
                try? await TestCluster.withClient(replica.configuration(database: "postgres")) { standby -> Bool? in
                    let rows = try await standby.query("SELECT status FROM pg_stat_wal_receiver", logger: Self.logger)
                    for try await status in rows.decode(String.self) where status == "streaming" { return true }
                    return nil
                }
            }
            var configuration = EngineTestApp.configuration
            // Only a replica that fails (refused, stopped) sends reads to the primary here, not
            // one that a loaded machine makes slow: what is read then shows where it was read.
            configuration.engine.readReplicaTimeout = TestPatience.event
            configuration.databaseReadURL =
                "postgres://\(replicaConfiguration.username)@/\(name)?host=\(replica.socketDirectory)"
            let app = try await buildApplication(
                configuration: configuration, database: .external(primary), logger: Self.logger)
            try await app.boundedTest(.router) { client in
                let start = SubmissionFixture.previousHourStart
                try await CheckinFixture(venue: "arms", device: "phone-one-0001", levelDBFS: -40, start: start)
                    .submit(to: client)
                _ = try await eventually("the first check-in counted") {
                    try await Self.venueCheckins(client) == 1 ? true : nil
                }

                // Replay paused: the primary judges a second check-in, but reads still show one.
                try await TestCluster.withClient(replica.configuration(database: "postgres")) { standby in
                    _ = try await standby.query("SELECT pg_wal_replay_pause()", logger: Self.logger)
                }
                try await CheckinFixture(venue: "arms", device: "phone-two-0002", levelDBFS: -40, start: start)
                    .submit(to: client)
                _ = try await eventually("the second check-in judged on the primary") {
                    try await database.count("checkins", where: "status <> 'pending'") == 2 ? true : nil
                }
                for _ in 0..<5 {
                    #expect(try await Self.venueCheckins(client) == 1, "read from the paused replica")
                    try await Task.sleep(for: .milliseconds(100))
                }

                // Replayed: the new check-in shows through the replica, and is then kept.
                try await TestCluster.withClient(replica.configuration(database: "postgres")) { standby in
                    _ = try await standby.query("SELECT pg_wal_replay_resume()", logger: Self.logger)
                }
                _ = try await eventually("the second check-in, once replayed") {
                    try await Self.venueCheckins(client) == 2 ? true : nil
                }

                // The replica stops: reads go to the primary, and the server stays ready.
                try await TestCluster.shared.stopReplica()
                try await database.query(
                    "UPDATE venues SET name = 'Read from the primary' WHERE external_id = 'arms'", logger: Self.logger)
                _ = try await eventually("the venue read from the primary") {
                    try await JSONProbe.get(Self.venue, from: client)?["name"] as? String == "Read from the primary"
                        ? true : nil
                }
                let ready = try await client.execute(uri: "/ready", method: .get) { $0.status }
                #expect(ready == .ok)
            }
        }
    }
}
