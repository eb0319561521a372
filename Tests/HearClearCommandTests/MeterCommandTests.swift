import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HummingbirdTesting
import Testing

@testable import HearClearEngine

/// `hearclear meter` run as a user runs it, on a file the test writes to a temporary folder.
@Suite("hearclear meter")
struct MeterCommandTests {
    @Test("--json prints the v2 samples with their times from --start")
    func json() async throws {
        let audio = try TestAudio.sine(dBFS: -20, seconds: 3.5, sampleRate: 48000, channels: 2)

        let result = try await withScratchDirectory { scratch in
            let file = scratch.appendingPathComponent("tone.wav")
            try audio.write(to: file)
            return try await HearClearCommand.run(
                ["meter", file.path, "--json", "--start", "2026-11-21T21:03:04+11:00"], scratch: scratch)
        }

        #expect(result.status == 0, "\(result.errors)")
        let answer = MeterAnswer(json: Data(result.output.utf8))
        #expect(answer["unit"] as? String == "dbfs")
        #expect(
            answer.samples.map { $0["t"] as? String } == [
                "2026-11-21T21:03:04+11:00", "2026-11-21T21:03:05+11:00", "2026-11-21T21:03:06+11:00",
                "2026-11-21T21:03:07+11:00",
            ])
        #expect(answer.samples.map { $0["offset"] as? Int } == [0, 1, 2, 3])
        #expect(answer.levels("average").allSatisfy { abs($0 - -23.01) <= 0.05 })
        #expect(answer.levels("peak").allSatisfy { abs($0 - -20) <= 0.05 })
        #expect(answer.levels("aWeighted").count == 4)
        #expect(answer.levels("lceq").count == 4)
        #expect(answer.levels("lceq").allSatisfy { abs($0 - -23.01) <= 0.1 })
        #expect(answer.samples.allSatisfy { ($0["bands"] as? [String: Double])?.count == 24 })
        let character = answer["character"] as? [String: Any]
        #expect((character?["windows"] as? [[String: Any]])?.count == 1)
        #expect(answer.format["channels"] as? Int == 2)
        #expect(answer.format["durationSeconds"] as? Double == 3.5)
        #expect(answer.trailing["handling"] as? String == "included")
        #expect(answer.trailing["seconds"] as? Double == 0.5)
    }

    @Test("without --json it prints a table, one row per second, and what became of the last part")
    func table() async throws {
        let audio = try TestAudio.sine(seconds: 2.2, sampleRate: 16000)

        let result = try await withScratchDirectory { scratch in
            let file = scratch.appendingPathComponent("tone.wav")
            try audio.write(to: file)
            return try await HearClearCommand.run(["meter", file.path], scratch: scratch)
        }

        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines.contains {
                $0.contains("RMS dBFS") && $0.contains("peak dBFS") && $0.contains("A-wtd dBFS")
                    && $0.contains("C-wtd dBFS")
            })
        let rows = lines.filter { $0.split(separator: " ").count == 5 && $0.contains("-3.01") }
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.split(separator: " ")[2] == "0.00" || $0.split(separator: " ")[2] == "-0.00" })
        // A 1 kHz tone: C- and A-weighting are both 0 dB there.
        #expect(rows.allSatisfy { abs((Double($0.split(separator: " ")[4]) ?? 0) - -3.01) < 0.1 })
        // Two seconds: one window, too short to judge, and the shares and median LC − LA.
        #expect(result.output.contains("what kind of loud"))
        #expect(lines.contains { $0.hasPrefix("  0-2 s") && $0.contains("uncertain") })
        #expect(result.output.contains("uncertain 100 %; median LC − LA 0.0 dB."))
        #expect(
            result.output.contains("trailing partial second: the last 0.2 s is shorter than 0.5 s and is not metered"))
    }

    @Test("a file libsndfile cannot read fails with its message")
    func unreadable() async throws {
        let result = try await withScratchDirectory { scratch in
            let file = scratch.appendingPathComponent("notes.txt")
            try Data("these are not the sounds you are looking for\n".utf8).write(to: file)
            return try await HearClearCommand.run(["meter", file.path], scratch: scratch)
        }

        #expect(result.status != 0)
        #expect(result.errors.contains("Format not recognised"))
    }

    @Test("submit options without --submit are refused")
    func submitOptionsAlone() async throws {
        let result = try await withScratchDirectory { scratch in
            try await HearClearCommand.run(["meter", "x.wav", "--url", "http://127.0.0.1:1"], scratch: scratch)
        }

        #expect(result.status != 0)
        #expect(result.errors.contains("only used with --submit"))
    }

    @Test("--submit posts a v2 check-in and prints the server's answer")
    func submit() async throws {
        let audio = try TestAudio.sine(dBFS: -30, seconds: 12, sampleRate: 8000)
        let start = RFC3339.format(Date().addingTimeInterval(-120).rounded(.down))

        let (result, checkin) = try await MeterServer.withLive { client, _ in
            let port = try #require(client.port)
            let result = try await withScratchDirectory { scratch in
                let file = scratch.appendingPathComponent("pub.wav")
                try audio.write(to: file)
                return try await HearClearCommand.run(
                    [
                        "meter", file.path, "--start", start, "--submit", "--url", "http://localhost:\(port)",
                        "--venue", "meter-test-venue", "--venue-name", "The Meter Arms", "--latitude", "-33.8688",
                        "--longitude", "151.2093", "--timezone", "Australia/Sydney", "--device", "zoom-h5-0001",
                        "--model", "Zoom H5", "--wait", "0",
                    ], scratch: scratch)
            }
            // "check-in <id> sent to …": read back what the server stored under that id.
            let id = result.output.split(separator: " ").dropFirst().first.map(String.init) ?? "none"
            return (result, try await client.execute(uri: "/api/v2/checkins/\(id)", method: .get))
        }
        let stored = MeterAnswer(checkin)

        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("check-in "))
        #expect(result.output.contains("201 Created"))
        #expect(result.output.contains("judgement: "))
        #expect(stored["sampleCount"] as? Int == 12)
        #expect(stored["startedAt"] as? String == start)
        #expect(stored["venue"] as? String == "meter-test-venue")
        #expect((stored["device"] as? [String: Any])?["model"] as? String == "Zoom H5")
    }

    @Test("--help explains metering and submitting")
    func help() async throws {
        let result = try await withScratchDirectory { scratch in
            try await HearClearCommand.run(["meter", "--help"], scratch: scratch)
        }

        #expect(result.status == 0)
        for option in ["--json", "--start", "--submit", "--url", "--venue", "--device", "--model", "trailing"] {
            #expect(result.output.contains(option), "help lacks \(option)")
        }
    }
}

extension Date {
    fileprivate func rounded(_ rule: FloatingPointRoundingRule) -> Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded(rule))
    }
}
