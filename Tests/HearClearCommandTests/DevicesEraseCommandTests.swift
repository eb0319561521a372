import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `hearclear devices erase`, for an operator answering an erasure request that came by mail.
@Suite("hearclear devices erase")
struct DevicesEraseCommandTests {
    @Test("erases the device named by the id the phone sends, queues its venues, audit-logs counts; unknown: exit 1")
    func erase() async throws {
        try await withTestDatabase { client, configuration in
            // Stored as the server stores it: keyed under the test servers' key, which the
            // command is given too (HearClearCommand.run).
            let intake = Engine.testing(client).intake
            for (venue, device) in [("e0", "mailed-phone"), ("e1", "mailed-phone"), ("e1", "other-phone")] {
                _ = try await intake.submit(
                    SubmissionFixture.submission(
                        venue: venue, timezone: "UTC", device: device, levelDBFS: -40,
                        start: SubmissionFixture.previousHourStart.addingTimeInterval(venue == "e0" ? 0 : 900),
                        seconds: 60))
            }
            try await client.query("DELETE FROM aggregation_queue")
            let url = try await HearClearCommand.databaseURL(configuration)
            func run(_ device: String) async throws -> HearClearCommand.Result {
                try await withScratchDirectory { scratch in
                    try await HearClearCommand.run(
                        ["devices", "erase", device, "--resources", TestCluster.repositoryRoot], scratch: scratch,
                        environment: ["DATABASE_URL": url])
                }
            }

            let erased = try await run("mailed-phone")
            #expect(erased.status == 0, "stderr: \(erased.errors)")
            #expect(erased.output.contains("Device erased: 2 check-in(s), 0 report(s)"), "output: \(erased.output)")
            #expect(erased.output.contains("2 venue(s) queued"))
            #expect(try await client.count("checkins") == 1)
            #expect(try await client.count("devices") == 1)
            #expect(try await client.count("aggregation_queue") == 2)
            #expect(
                try await client.count(
                    "admin_audit_log", where: "action = 'device erased' AND username = 'operator' AND subject IS NULL")
                    == 1)

            let again = try await run("mailed-phone")
            #expect(again.status == 1)
            #expect(again.errors.contains("Nothing is stored about this device."))
        }
    }
}
