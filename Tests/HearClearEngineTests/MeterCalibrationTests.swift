import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

@Suite("A meter's log")
struct MeterCSVTests {
    @Test func rowsOfTimeAndLevelWithAHeader() throws {
        let levels = try MeterCSV.parse(
            "time;LAeq\n2026-11-21T21:03:04+11:00;71.5\r\n\n2026-11-21T10:03:05Z , 72\n\"2026-11-21T10:03:06Z\"\t70.25\n"
        )
        // 21:03:04 at +11:00 is 10:03:04 UTC: 1_795_255_384 s since 1970 (by `date -d`).
        #expect(levels == [1_795_255_384: 71.5, 1_795_255_385: 72, 1_795_255_386: 70.25])
    }

    @Test func aBadRowNamesItsLine() {
        #expect(throws: MeterCSV.Failure(line: 3, reason: "the level 'loud' is not a number of dB from 0 to 200")) {
            try MeterCSV.parse("time,level\n2026-11-21T10:03:04Z,70\n2026-11-21T10:03:05Z,loud\n")
        }
        #expect(throws: MeterCSV.Failure.self) { try MeterCSV.parse("2026-11-21 late,70\n") }
        #expect(throws: MeterCSV.Failure(line: 1, reason: "no rows of time and level")) { try MeterCSV.parse("") }
    }
}

@Suite("Calibration beside a sound level meter")
struct MeterCalibrationTests {
    let logger = engineTestLogger
    /// 2026-11-18 10:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_794_996_000)

    @Test("a stored check-in and the meter's log give the model's offset; --apply's record anchors the model")
    func offsetFromAStoredCheckin() async throws {
        try await withTestDatabase { client, _ in
            var submission = SubmissionFixture.submission(
                venue: "lab", timezone: nil, device: "lab-phone", levelDBFS: -40, start: Self.start, seconds: 90)
            submission.deviceModel = "Pixel 7"
            _ = try await CheckinRepository(client: client, logger: logger).ingest(submission, maxDistanceMetres: 250)
            // The meter read each second's phone level + 112 dB, ±0.25 dB, for seconds 10–79 only;
            // its log has a header and seconds the phone did not record.
            var csv = "time,LAeq\n"
            for second in 0..<100 where second >= 10 && second < 80 || second >= 95 {
                let phone = second < 90 ? submission.averageDBFS[second] : -40
                let level = Double(phone) + 112 + (second % 2 == 0 ? 0.25 : -0.25)
                csv += "\(RFC3339.format(Self.start.addingTimeInterval(Double(second)))),\(level)\n"
            }
            let calibrator = Calibrator(client: client, referenceOffsetDB: 110, logger: logger)
            let calibration = try await calibrator.compareWithMeter(checkinID: submission.id, csv: csv)
            #expect(calibration.model == "Pixel 7")
            // 70 shared seconds, 35 at 112.25 and 35 at 111.75: median 112.0, spread
            // 1.4826 × 0.25 (by hand; Float samples move it by under 1e-5).
            #expect(calibration.result.seconds == 70)
            #expect(abs(calibration.result.offsetDB - 112) < 1e-4)
            #expect(abs(calibration.result.spreadDB - 0.37065) < 1e-4)

            let (_, applied) = try await calibrator.recordReference(
                model: calibration.model, method: .meter, absoluteOffsetDB: calibration.result.offsetDB,
                detail: "{}", by: "test")
            #expect(applied?.changedModels == ["Pixel 7"])
            let model = try await calibrator.calibrations.models().first { $0.model == "Pixel 7" }
            #expect(model?.inForce?.source == .reference)
            #expect(abs((model?.inForce?.offsetDB ?? 0) - 2) < 1e-4, "112 − the reference offset 110")

            await #expect(throws: Calibrator.MeterCalibrationError.unknownCheckin) {
                try await calibrator.compareWithMeter(checkinID: UUID(), csv: csv)
            }
            await #expect(throws: Calibrator.MeterCalibrationError.comparison(.tooFewSeconds(found: 0))) {
                try await calibrator.compareWithMeter(
                    checkinID: submission.id, csv: "2020-01-01T00:00:00Z,70\n")
            }
        }
    }
}
