import Foundation
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import Logging
import Testing

/// `hearclear calibrate meter` and `calibrate models`, run as an operator runs them, against a
/// test database through `--database-url` (its Unix socket).
@Suite("hearclear calibrate meter and models")
struct CalibrateCommandTests {
    /// 2026-11-18 10:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_794_996_000)

    @Test("meter --apply records the model's offset; models lists it in force")
    func meterThenModels() async throws {
        try await withTestDatabase { client, configuration in
            var submission = SubmissionFixture.submission(
                venue: "lab", timezone: nil, device: "lab-phone", levelDBFS: -40, start: Self.start, seconds: 60)
            submission.deviceModel = "Pixel 7"
            _ = try await Engine.testing(client).intake.submit(submission)
            // The meter read 112 dB above the phone every second.
            var csv = "time,LAeq\n"
            for (second, level) in submission.averageDBFS.enumerated() {
                csv += "\(ISO8601DateFormatter().string(from: Self.start.addingTimeInterval(Double(second)))),"
                csv += "\(Double(level) + 112)\n"
            }
            let url = try await HearClearCommand.databaseURL(configuration)
            let (meter, models, badID) = try await withScratchDirectory { scratch in
                let file = scratch.appendingPathComponent("meter.csv")
                try Data(csv.utf8).write(to: file)
                return (
                    try await HearClearCommand.run(
                        [
                            "calibrate", "meter", "--checkin", submission.id.uuidString, "--csv", file.path, "--apply",
                            "--json", "--database-url", url,
                        ], scratch: scratch),
                    try await HearClearCommand.run(
                        ["calibrate", "models", "--json", "--database-url", url], scratch: scratch),
                    try await HearClearCommand.run(
                        [
                            "calibrate", "meter", "--checkin", UUID().uuidString, "--csv", file.path, "--database-url",
                            url,
                        ],
                        scratch: scratch)
                )
            }
            #expect(meter.status == 0, "\(meter.errors)")
            let answer = try JSONSerialization.jsonObject(with: Data(meter.output.utf8)) as? [String: Any] ?? [:]
            #expect(answer["model"] as? String == "Pixel 7")
            #expect(abs((answer["offsetDb"] as? Double ?? 0) - 112) < 0.01)
            #expect(answer["seconds"] as? Int == 60)
            #expect(meter.errors.contains("Recorded meter calibration"))

            #expect(models.status == 0, "\(models.errors)")
            let listed = try JSONSerialization.jsonObject(with: Data(models.output.utf8)) as? [String: Any] ?? [:]
            let pixel = (listed["models"] as? [[String: Any]] ?? []).first { $0["model"] as? String == "Pixel 7" }
            #expect(pixel?["source"] as? String == "reference")
            // 112 less the default reference offset of 110.
            #expect(abs((pixel?["offsetInForceDb"] as? Double ?? 0) - 2) < 0.01)
            #expect((pixel?["references"] as? [[String: Any]])?.first?["method"] as? String == "meter")

            #expect(badID.status != 0)
            #expect(badID.errors.contains("no check-in has that id"))
        }
    }
}
