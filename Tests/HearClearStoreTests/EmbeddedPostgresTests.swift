import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@Suite("Embedded PostgreSQL", .serialized)
struct EmbeddedPostgresTests {
    let logger = Logger(label: "test")

    @Test("starts, serves queries, refuses a second server on its data dir, stops, and starts again")
    func lifecycle() async throws {
        let directory = NSTemporaryDirectory() + "hearclear-embedded-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let server = try EmbeddedPostgres.start(dataDirectory: directory, durable: false, logger: logger)
        let answer = try await TestCluster.withClient(server.configuration()) { client in
            let rows = try await client.query("SELECT current_setting('listen_addresses'), 40 + 2")
            for try await row in rows.decode((String, Int).self) { return row }
            return ("?", 0)
        }
        #expect(answer.0 == "", "no TCP listener: only the Unix socket")
        #expect(answer.1 == 42)
        #expect(FileManager.default.fileExists(atPath: directory + "/postgres/PG_VERSION"))

        #expect {
            try EmbeddedPostgres.start(dataDirectory: directory, durable: false, logger: logger)
        } throws: { error in
            "\(error)".contains("already using the data directory")
        }

        server.stop()
        #expect(!server.isRunning)
        #expect(!FileManager.default.fileExists(atPath: server.socketPath))

        let again = try EmbeddedPostgres.start(dataDirectory: directory, durable: false, logger: logger)
        #expect(again.isRunning)
        again.stop()
    }

    @Test("a long data dir path puts the socket in a short private directory")
    func longPath() async throws {
        let directory =
            NSTemporaryDirectory() + "hearclear-" + String(repeating: "long-", count: 16)
            + "\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let server = try EmbeddedPostgres.start(dataDirectory: directory, durable: false, logger: logger)
        defer { server.stop() }

        #expect(server.socketPath.utf8.count <= 100)
        #expect(server.socketDirectory.hasPrefix("/tmp/hearclear-"))
        let ok = try await TestCluster.withClient(server.configuration()) { client in
            try await client.query("SELECT 1").decode(Int.self).first { _ in true }
        }
        #expect(ok == 1)
    }

    @Test("missing server programs give one line naming the Debian package")
    func missingBinaries() {
        #expect {
            try PostgresBinaries.locate(
                environment: ["PATH": "/nonexistent"], systemRoot: "/nonexistent", usePgConfig: false)
        } throws: { error in
            let message = "\(error)"
            return message.contains("'postgresql'") && !message.contains("\n")
        }
    }
}

@Suite("DATABASE_URL")
struct DatabaseURLTests {
    @Test("TCP with credentials, a Unix socket, and bad URLs")
    func parse() throws {
        let tcp = try DatabaseURL.configuration("postgres://app:s%40cret@db.internal:5433/hearclear")
        #expect(tcp.host == "db.internal")
        #expect(tcp.port == 5433)
        #expect(tcp.username == "app")
        #expect(tcp.password == "s@cret")
        #expect(tcp.database == "hearclear")

        let socket = try DatabaseURL.configuration("postgresql://me@/hearclear?host=/var/run/postgresql")
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")

        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL.configuration("mysql://x@y/z") }
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL.configuration("postgres://u@h/d?sslmode=bogus") }
    }
}
