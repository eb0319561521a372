import Foundation
import HearClearServerTestSupport
import HearClearTestSupport
import PostgresNIO
import Testing

/// `hearclear-bench simulate` against a served application, through the typed client.
@Suite("hearclear-bench simulate")
struct SimulateCommandTests {
    @Test(
        "hearclear-bench simulate sends its city through the client, and --evaluate reads it back",
        .timeLimit(.minutes(5)))
    func simulate() async throws {
        try await MeterServer.withLive { server, database in
            let url = "http://localhost:\(try #require(server.port))"
            try await withScratchDirectory { scratch in
                let truth = scratch.appendingPathComponent("truth.json").path
                let sent = try await HearClearCommand.run(
                    [
                        "simulate", "--url", url, "--venues", "2", "--days", "1", "--rate", "1", "--seed", "7",
                        "--hide-cells", "0", "--truth", truth,
                    ], program: "hearclear-bench", scratch: scratch)
                #expect(sent.status == 0, "\(sent.errors)")
                let line = try #require(sent.output.split(separator: "\n").first { $0.hasPrefix("sent ") })
                #expect(line.contains(", 0 refused"), "\(sent.output)")
                let count = try #require(Int(line.split(separator: " ")[1]))
                #expect(count > 0)

                #expect(try await database.count("checkins") == count)
                #expect(
                    try await database.count("venues", where: "external_id LIKE 'sim-7-%' AND timezone IS NOT NULL")
                        == 2)
                #expect(
                    try await database.count(
                        "checkins", where: "COALESCE(utc_offsets_min, ARRAY[utc_offset_min]) <> '{0}'") == 0,
                    "the simulator writes its times in UTC")

                let evaluated = try await HearClearCommand.run(
                    ["simulate", "--url", url, "--evaluate", truth], program: "hearclear-bench", scratch: scratch)
                #expect(evaluated.status == 0, "\(evaluated.errors)")
                #expect(evaluated.output.contains("judgements (outlier or excluded = rejected):"))
                #expect(evaluated.output.contains("clean"))
            }
        }
    }
}
