import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `hearclear months list` and `hearclear months drop --before YYYY-MM`, run as processes.
@Suite("hearclear months")
struct MonthsCommandTests {
    @Test(
        "lists the months; refuses a malformed month and a month too recent, changing nothing; a dry run changes nothing; drops the old month; nothing to do before any month"
    )
    func months() async throws {
        try await withTestDatabase { client, configuration in
            let now = Date()
            let old = UTCMonth(containing: now.addingTimeInterval(-200 * 86_400)).start.addingTimeInterval(
                3 * 86_400 + 18 * 3_600)
            let oldMonth = UTCMonth(containing: old)
            let intake = Engine.testing(client).intake
            for (device, start) in [
                ("p0", old), ("p1", old.addingTimeInterval(600)), ("p0", SubmissionFixture.previousHourStart),
            ] {
                _ = try await intake.submit(
                    SubmissionFixture.submission(
                        venue: "m0", timezone: "UTC", device: device, levelDBFS: -40, start: start, seconds: 60))
            }
            let url = try await HearClearCommand.databaseURL(configuration)
            func run(_ arguments: [String]) async throws -> HearClearCommand.Result {
                try await withScratchDirectory { scratch in
                    try await HearClearCommand.run(
                        ["months"] + arguments + ["--resources", TestCluster.repositoryRoot], scratch: scratch,
                        environment: ["DATABASE_URL": url])
                }
            }
            func state() async throws -> [String] {
                [
                    String(try await client.count("checkins")), String(try await client.count("checkin_ids")),
                    String(try await client.count("checkin_hours")),
                    String(try await client.count("aggregation_queue")),
                    String(try await client.count("admin_audit_log")),
                ] + (try await client.texts("SELECT checkins::text FROM venue_counts"))
            }

            let listed = try await run(["list"])
            #expect(listed.status == 0, "stderr: \(listed.errors)")
            let oldLine = listed.output.split(separator: "\n").first { $0.hasPrefix(oldMonth.description) }
            #expect(oldLine?.contains(" 2 ") == true && oldLine?.hasSuffix("yes") == true, "output: \(listed.output)")
            let currentLine = listed.output.split(separator: "\n").first {
                $0.hasPrefix(UTCMonth(containing: now).description)
            }
            #expect(currentLine?.hasSuffix("no") == true, "output: \(listed.output)")
            let json = try await run(["list", "--json"])
            #expect(json.status == 0)
            let decoded = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
            #expect(decoded?.first { $0["month"] as? String == oldMonth.description }?["checkins"] as? Int == 2)

            let untouched = try await state()
            for bad in ["2025-13", "2025-6", "June"] {
                let refused = try await run(["drop", "--before", bad])
                #expect(refused.status != 0)
                #expect(refused.errors.contains("'\(bad)' is not a month: write YYYY-MM"), "stderr: \(refused.errors)")
            }
            let tooRecent = try await run([
                "drop", "--before", UTCMonth(containing: now).adding(months: 1).description, "--keep-months", "0",
            ])
            #expect(tooRecent.status == 1)
            #expect(tooRecent.errors.contains("Refused, nothing changed"), "stderr: \(tooRecent.errors)")
            let negative = try await run(["drop", "--before", oldMonth.description, "--keep-months=-1"])
            #expect(negative.status != 0 && negative.errors.contains("--keep-months must be 0 or more"))
            let dry = try await run(["drop", "--before", oldMonth.adding(months: 1).description, "--dry-run"])
            #expect(dry.status == 0, "stderr: \(dry.errors)")
            #expect(
                dry.output.contains("Would drop") && dry.output.contains(oldMonth.description), "output: \(dry.output)")
            #expect(try await state() == untouched, "refusals and the dry run change nothing")

            let nothing = try await run(["drop", "--before", oldMonth.description])
            #expect(nothing.status == 0 && nothing.output.contains("nothing to do"), "output: \(nothing.output)")

            let dropped = try await run(["drop", "--before", oldMonth.adding(months: 1).description])
            #expect(dropped.status == 0, "stderr: \(dropped.errors)")
            #expect(
                dropped.output.contains("Dropped \(oldMonth): 2 check-in(s)")
                    && dropped.output.contains("1 venue(s) queued to be judged again"), "output: \(dropped.output)")
            #expect(try await client.count("checkins") == 1)
            #expect(try await client.count("checkin_ids") == 1)
            #expect(try await client.texts("SELECT checkins::text FROM venue_counts") == ["1"])
            #expect(
                try await client.count(
                    "admin_audit_log", where: "action = 'check-in month dropped' AND username = 'operator'") == 1)
        }
    }
}
