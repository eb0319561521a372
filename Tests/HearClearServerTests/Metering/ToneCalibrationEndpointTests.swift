import Foundation
import HTTPTypes
import HearClearHTTP
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

/// `POST /api/v2/calibrations/tone`: the offset from a calibrator's tone made here (a sine whose
/// RMS is known analytically: amplitude/√2), and the problems of what is not a clean tone.
@Suite("Tone calibration route")
struct ToneCalibrationEndpointTests {
    static let wavHeaders: HTTPFields = [.contentType: "audio/wav"]
    /// 10·log10(2): `TestAudio.sine` takes the peak level; a sine's RMS lies this far below it.
    static let crestDB = 10 * log10(2.0)

    static func post(_ audio: Data, query: String = "?referenceDb=94", headers: HTTPFields = wavHeaders)
        async throws -> TestResponse
    {
        try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/calibrations/tone\(query)", method: .post, headers: headers,
                body: ByteBuffer(data: audio))
        }
    }

    static func expectNoTone(_ response: TestResponse, detailPrefix: String) {
        #expect(response.status == .unprocessableContent)
        #expect(response.headers[.contentType] == "application/problem+json")
        let problem = MeterAnswer(response)
        #expect(problem["type"] as? String == "https://hearclear.app/problems/no-calibration-tone")
        #expect(problem["instance"] as? String == "/api/v2/calibrations/tone")
        let detail = problem["detail"] as? String ?? ""
        #expect(detail.hasPrefix(detailPrefix), "detail: \(detail)")
    }

    @Test("1 kHz at −26 dBFS RMS with referenceDb=94 answers an offset of 120.0 ± 0.1")
    func oneKilohertz() async throws {
        let audio = try TestAudio.sine(dBFS: -26 + Self.crestDB, seconds: 3)

        let response = try await Self.post(audio)

        #expect(response.status == .ok)
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        let answer = MeterAnswer(response)
        #expect(Set(answer.object.keys) == ["frequencyHz", "levelDbfs", "offsetDb", "snrDb", "seconds"])
        let offset = try #require(answer["offsetDb"] as? Double)
        let level = try #require(answer["levelDbfs"] as? Double)
        #expect(abs(offset - 120) <= 0.1, "offset \(offset)")
        #expect(abs(level - -26) <= 0.1, "level \(level)")
        #expect(abs(offset + level - 94) < 0.011, "offset = reference − level, each rounded to 0.01")
        #expect(answer["frequencyHz"] as? Double == 1000)
        #expect((answer["snrDb"] as? Double ?? 0) > 60, "16-bit quantisation noise is ~70 dB down")
        #expect(answer["seconds"] as? Double == 3)
    }

    @Test("a stereo FLAC of a 250 Hz calibrator at 114 dB, over 1 MiB, is measured like the meter's audio")
    func flac250() async throws {
        let audio = try TestAudio.sine(
            hz: 250, dBFS: -30 + Self.crestDB, seconds: 12, sampleRate: 44100, channels: 2, format: TestAudio.flac16)
        let wav = try TestAudio.sine(hz: 250, dBFS: -30 + Self.crestDB, seconds: 12, sampleRate: 44100)

        let (flacResponse, wavResponse) = try await MeterServer.withRouter { client in
            (
                try await client.execute(
                    uri: "/api/v2/calibrations/tone?referenceDb=114", method: .post,
                    headers: [.contentType: "audio/flac"], body: ByteBuffer(data: audio)),
                try await client.execute(
                    uri: "/api/v2/calibrations/tone?referenceDb=114", method: .post, headers: Self.wavHeaders,
                    body: ByteBuffer(data: wav))
            )
        }

        #expect(wav.count > BodyLimits.wireBytes, "the meter's 50 MiB limit applies, not the 1 MiB of JSON routes")
        for response in [flacResponse, wavResponse] {
            #expect(response.status == .ok)
            let answer = MeterAnswer(response)
            #expect(abs((answer["offsetDb"] as? Double ?? 0) - 144) <= 0.1)
            #expect(answer["frequencyHz"] as? Double == 250)
        }
    }

    @Test(
        "referenceDb missing or not a number in 40…140 is a 422 naming referenceDb",
        arguments: [
            "", "?referenceDb=", "?referenceDb=loud", "?referenceDb=39.9", "?referenceDb=141", "?referenceDb=nan",
        ])
    func badReference(query: String) async throws {
        let audio = try TestAudio.sine(dBFS: -20, seconds: 3)

        let response = try await Self.post(audio, query: query)

        #expect(response.status == .unprocessableContent)
        let problem = MeterAnswer(response)
        #expect(problem["type"] as? String == "https://hearclear.app/problems/validation")
        let errors = problem["errors"] as? [[String: Any]] ?? []
        #expect(errors.count == 1)
        #expect(errors.first?["pointer"] as? String == "referenceDb")
        #expect((errors.first?["detail"] as? String)?.contains("40 to 140") == true)
    }

    @Test("two tones are refused, naming both frequencies")
    func twoTones() async throws {
        let frames = 48000 * 3
        let amplitude = pow(10, -26 / 20.0)
        let samples = (0..<frames).map { n in
            let t = Double(n) / 48000
            return Float(amplitude * (sin(2 * .pi * 1000 * t) + sin(2 * .pi * 1500 * t)))
        }
        let audio = try TestAudio.encode(samples, channels: 1, sampleRate: 48000, format: TestAudio.wav16)

        let response = try await Self.post(audio)

        Self.expectNoTone(response, detailPrefix: "two tones:")
        let detail = MeterAnswer(response)["detail"] as? String ?? ""
        #expect(detail.contains("1000.0 Hz") && detail.contains("1500.0 Hz"))
    }

    @Test("silence is refused as silence")
    func silence() async throws {
        Self.expectNoTone(try await Self.post(try TestAudio.silence(seconds: 3)), detailPrefix: "silence:")
    }

    @Test("a 1 s recording is refused as too short, with its length")
    func oneSecond() async throws {
        let response = try await Self.post(try TestAudio.sine(dBFS: -20, seconds: 1))

        Self.expectNoTone(response, detailPrefix: "too short: 1.00 s")
    }

    @Test("bytes libsndfile cannot read are 415 unreadable-audio, as on the meter")
    func garbage() async throws {
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

        let response = try await Self.post(garbage)

        #expect(response.status == .unsupportedMediaType)
        #expect(MeterAnswer(response)["type"] as? String == "https://hearclear.app/problems/unreadable-audio")
    }

    @Test("a JSON body is 415 with the accepted types, and an empty body is 400")
    func wrongTypeAndEmpty() async throws {
        let audio = try TestAudio.sine(dBFS: -20, seconds: 3)

        let json = try await Self.post(audio, headers: [.contentType: "application/json"])
        let empty = try await Self.post(Data())

        #expect(json.status == .unsupportedMediaType)
        #expect(json.headers[.accept]?.contains("audio/wav") == true)
        #expect(empty.status == .badRequest)
        #expect(MeterAnswer(empty)["type"] as? String == "https://hearclear.app/problems/malformed")
    }
}

/// `hearclear calibrate tone`, run as a user runs it, on files the test writes to a temporary folder.
@Suite("hearclear calibrate tone")
struct CalibrateToneCommandTests {
    @Test("--json prints the endpoint's document")
    func json() async throws {
        let audio = try TestAudio.sine(dBFS: -26 + ToneCalibrationEndpointTests.crestDB, seconds: 3)

        let result = try await withScratchDirectory { scratch in
            let file = scratch.appendingPathComponent("calibrator.wav")
            try audio.write(to: file)
            return try await HearClearCommand.run(
                ["calibrate", "tone", file.path, "--reference-db", "94", "--json"], scratch: scratch)
        }

        #expect(result.status == 0, "\(result.errors)")
        let answer = MeterAnswer(json: Data(result.output.utf8))
        #expect(abs((answer["offsetDb"] as? Double ?? 0) - 120) <= 0.1)
        #expect(answer["frequencyHz"] as? Double == 1000)
        #expect(answer["seconds"] as? Double == 3)
    }

    @Test("without --json it prints the tone, level, offset and the per-second levels")
    func report() async throws {
        let audio = try TestAudio.sine(hz: 250, dBFS: -20, seconds: 2, sampleRate: 16000)

        let result = try await withScratchDirectory { scratch in
            let file = scratch.appendingPathComponent("calibrator.wav")
            try audio.write(to: file)
            return try await HearClearCommand.run(
                ["calibrate", "tone", file.path, "--reference-db", "94"], scratch: scratch)
        }

        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("250.0 Hz"))
        #expect(result.output.contains("-23.01 dBFS"))
        #expect(result.output.contains("117.01 dB"))
        #expect(result.output.contains("per second -23.01 -23.01 dBFS"))
    }

    @Test("a recording without a clean tone exits non-zero and says what it holds")
    func refused() async throws {
        let audio = try TestAudio.silence(seconds: 3)

        let result = try await withScratchDirectory { scratch in
            let file = scratch.appendingPathComponent("nothing.wav")
            try audio.write(to: file)
            return try await HearClearCommand.run(
                ["calibrate", "tone", file.path, "--reference-db", "94"], scratch: scratch)
        }

        #expect(result.status != 0)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("no clean calibration tone in"))
        #expect(result.errors.contains("silence:"))
    }

    @Test("--reference-db is required and must lie in 40…140")
    func referenceRequired() async throws {
        let (missing, outOfRange) = try await withScratchDirectory { scratch in
            (
                try await HearClearCommand.run(["calibrate", "tone", "any.wav"], scratch: scratch),
                try await HearClearCommand.run(
                    ["calibrate", "tone", "any.wav", "--reference-db", "300"], scratch: scratch)
            )
        }

        #expect(missing.status != 0 && missing.errors.contains("--reference-db"))
        #expect(outOfRange.status != 0 && outOfRange.errors.contains("from 40 to 140"))
    }
}
