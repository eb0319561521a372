import CompressNIO
import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

/// `POST /api/v2/meter`: levels of generated signals against hand-derived values, the format
/// and trailing-second report, and the problem documents of bodies that cannot be metered.
@Suite("Meter route")
struct MeterRouteTests {
    static let wavHeaders: HTTPFields = [.contentType: "audio/wav"]

    @Test("a full-scale 1 kHz sine reads RMS −3.01 and peak 0.00 every second")
    func fullScaleSine() async throws {
        let audio = try TestAudio.sine(seconds: 3)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: audio))
        }

        #expect(response.status == .ok)
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        let answer = MeterAnswer(response)
        #expect(answer["unit"] as? String == "dbfs")
        #expect(answer.samples.map { $0["offset"] as? Int } == [0, 1, 2])
        #expect(answer.levels("average").count == 3 && answer.levels("peak").count == 3)
        #expect(answer.levels("average").allSatisfy { abs($0 - -3.01) <= 0.05 })
        #expect(answer.levels("peak").allSatisfy { abs($0 - 0) <= 0.05 })
        // A-weighting is 0 dB at 1 kHz by definition.
        #expect(answer.levels("aWeighted").allSatisfy { abs($0 - -3.01) <= 0.2 })
        #expect(answer.samples.allSatisfy { $0["t"] == nil })
        #expect(answer.format["sampleRate"] as? Int == 48000)
        #expect(answer.format["channels"] as? Int == 1)
        #expect(answer.format["durationSeconds"] as? Double == 3)
        #expect((answer.format["name"] as? String)?.hasPrefix("WAV") == true)
        #expect(answer.trailing["handling"] as? String == "none")
    }

    @Test("stereo FLAC at −20 dB reads RMS −23.01 and peak −20.00")
    func flacAtMinus20() async throws {
        let audio = try TestAudio.sine(dBFS: -20, seconds: 2, sampleRate: 44100, channels: 2, format: TestAudio.flac16)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: [.contentType: "audio/flac"],
                body: ByteBuffer(data: audio))
        }

        #expect(response.status == .ok)
        let answer = MeterAnswer(response)
        #expect(answer.levels("average").count == 2)
        #expect(answer.levels("average").allSatisfy { abs($0 - -23.01) <= 0.05 })
        #expect(answer.levels("peak").allSatisfy { abs($0 - -20) <= 0.05 })
        #expect(answer.format["channels"] as? Int == 2)
        #expect(answer.format["sampleRate"] as? Int == 44100)
        #expect((answer.format["name"] as? String)?.contains("FLAC") == true)
    }

    @Test(
        "each second has its LCeq and third-octave bands, as a check-in sample carries them; the recording its character"
    )
    func cWeightingBandsAndCharacter() async throws {
        // A 63 Hz tone: A-weighting −26.2 dB, C-weighting −0.8 dB.
        let audio = try TestAudio.sine(hz: pow(10, 1.8), dBFS: -20, seconds: 12)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: audio))
        }

        #expect(response.status == .ok)
        let answer = MeterAnswer(response)
        #expect(answer.samples.count == 12)
        let centres = [
            "50", "63", "80", "100", "125", "160", "200", "250", "315", "400", "500", "630", "800", "1000", "1250",
            "1600", "2000", "2500", "3150", "4000", "5000", "6300", "8000", "10000",
        ]
        for sample in answer.samples {
            let a = try #require(sample["aWeighted"] as? Double)
            let c = try #require(sample["lceq"] as? Double)
            #expect(abs(c - a - 25.4) < 0.3)
            let bands = try #require(sample["bands"] as? [String: Double])
            #expect(Set(bands.keys) == Set(centres))
            #expect(abs((bands["63"] ?? 0) - -23.01) < 0.1)
            #expect(bands.allSatisfy { $0.key == "63" || $0.value < -45 })
        }
        let character = try #require(answer["character"] as? [String: Any])
        #expect(character["windowSeconds"] as? Int == 10)
        #expect(abs((character["medianLcMinusLa"] as? Double ?? 0) - 25.4) < 0.3)
        let shares = try #require(character["shares"] as? [String: Double])
        #expect(Set(shares.keys) == ["babble", "music", "bass_heavy_music", "steady_noise", "quiet", "uncertain"])
        #expect(abs(shares.values.reduce(0, +) - 1) < 0.01)
        let windows = try #require(character["windows"] as? [[String: Any]])
        #expect(windows.count == 1)
        #expect(windows[0]["offset"] as? Int == 0 && windows[0]["seconds"] as? Int == 12)
        #expect(shares[windows[0]["label"] as? String ?? ""] == 1)
        #expect((windows[0]["reason"] as? String)?.isEmpty == false)
        let features = try #require(windows[0]["features"] as? [String: Any])
        #expect(
            Set(features.keys) == [
                "laeq", "lcMinusLa", "lowFrequencyExcess", "flatness", "flux", "lowEnergyShare", "modulationRatio",
                "modulationDepth",
            ])
        #expect(abs((features["lcMinusLa"] as? Double ?? 0) - 25.4) < 0.3)
    }

    @Test("bands above Nyquist are left out, and a window too short to judge has null features")
    func absentBandsAndNullFeatures() async throws {
        let audio = try TestAudio.sine(dBFS: -10, seconds: 2, sampleRate: 8000)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: audio))
        }

        #expect(response.status == .ok)
        let answer = MeterAnswer(response)
        for sample in answer.samples {
            let bands = try #require(sample["bands"] as? [String: Double])
            // 3150 Hz is the last band under 4 kHz.
            #expect(bands.count == 19)
            #expect(bands["3150"] != nil && bands["4000"] == nil)
        }
        let character = try #require(answer["character"] as? [String: Any])
        let window = try #require((character["windows"] as? [[String: Any]])?.first)
        #expect(window["label"] as? String == "uncertain")
        let features = try #require(window["features"] as? [String: Any])
        #expect(features["modulationRatio"] is NSNull && features["modulationDepth"] is NSNull)
        #expect(features["laeq"] is Double)
    }

    @Test("start gives each sample its time, in start's own offset")
    func startTimes() async throws {
        let audio = try TestAudio.sine(seconds: 2)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter?start=2026-11-21T23:59:59%2B11:00", method: .post, headers: Self.wavHeaders,
                body: ByteBuffer(data: audio))
        }

        #expect(response.status == .ok)
        #expect(
            MeterAnswer(response).samples.map { $0["t"] as? String } == [
                "2026-11-21T23:59:59+11:00", "2026-11-22T00:00:00+11:00",
            ])
    }

    @Test(
        "what happens to the trailing partial second is reported",
        arguments: [(2.7, "included", 3), (2.3, "dropped", 2), (2.0, "none", 2)])
    func trailingPartialSecond(seconds: Double, handling: String, sampleCount: Int) async throws {
        let audio = try TestAudio.sine(dBFS: -6, seconds: seconds, sampleRate: 8000)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: audio))
        }

        let answer = MeterAnswer(response)
        #expect(answer.samples.count == sampleCount)
        #expect(answer.trailing["handling"] as? String == handling)
        #expect(answer.trailing["seconds"] as? Double == (seconds - 2).rounded(toPlaces: 3))
        #expect((answer.trailing["note"] as? String)?.isEmpty == false)
    }

    @Test(
        "every listed audio type is accepted, with parameters and in any case, and so is a missing type",
        arguments: [
            "audio/wav", "audio/x-wav", "audio/wave", "AUDIO/WAV; codecs=1", "audio/flac", "audio/ogg", "audio/mpeg",
            "application/octet-stream", nil,
        ])
    func acceptedTypes(contentType: String?) async throws {
        let audio = try TestAudio.sine(seconds: 1, sampleRate: 8000)
        var headers = HTTPFields()
        headers[.contentType] = contentType

        let response = try await MeterServer.withRouter { [headers] client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: headers, body: ByteBuffer(data: audio))
        }

        #expect(response.status == .ok)
    }

    @Test(
        "another content type is 415 with the accepted types",
        arguments: ["application/json", "text/plain", "video/mp4"])
    func wrongType(contentType: String) async throws {
        let audio = try TestAudio.sine(seconds: 1, sampleRate: 8000)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: [.contentType: contentType], body: ByteBuffer(data: audio)
            )
        }

        #expect(response.status == .unsupportedMediaType)
        #expect(response.headers[.contentType] == "application/problem+json")
        #expect(response.headers[.accept]?.contains("audio/flac") == true)
        let problem = MeterAnswer(response)
        #expect(problem["type"] as? String == "https://hearclear.app/problems/unsupported-media-type")
        #expect((problem["detail"] as? String)?.contains(contentType) == true)
    }

    @Test("bytes libsndfile cannot read are 415 with libsndfile's message")
    func corrupt() async throws {
        let garbage = ByteBuffer(bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

        let response = try await MeterServer.withRouter { client in
            try await client.execute(uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: garbage)
        }

        #expect(response.status == .unsupportedMediaType)
        let problem = MeterAnswer(response)
        #expect(problem["type"] as? String == "https://hearclear.app/problems/unreadable-audio")
        #expect(problem["detail"] as? String == "libsndfile: Format not recognised.")
        #expect(problem["status"] as? Int == 415)
    }

    @Test("a WAV whose header is cut short is 415 with libsndfile's message")
    func truncatedHeader() async throws {
        let audio = try TestAudio.sine(seconds: 1, sampleRate: 8000).prefix(30)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: audio))
        }

        #expect(response.status == .unsupportedMediaType)
        let detail = MeterAnswer(response)["detail"] as? String ?? ""
        #expect(detail.hasPrefix("libsndfile: ") && detail.count > "libsndfile: ".count)
    }

    @Test("a FLAC file cut off part-way is 422 with libsndfile's message")
    func truncatedFLAC() async throws {
        let flac = try TestAudio.sine(dBFS: -10, seconds: 4, sampleRate: 44100, format: TestAudio.flac16)
        let cut = flac.prefix(flac.count / 2)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: [.contentType: "audio/flac"], body: ByteBuffer(data: cut))
        }

        #expect(response.status == .unprocessableContent)
        let problem = MeterAnswer(response)
        #expect(problem["type"] as? String == "https://hearclear.app/problems/corrupt-audio")
        #expect(problem["detail"] as? String == "libsndfile: Error : flac decoder lost sync.")
    }

    @Test("an empty body is 400")
    func empty() async throws {
        let response = try await MeterServer.withRouter { client in
            try await client.execute(uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer())
        }

        #expect(response.status == .badRequest)
        #expect(MeterAnswer(response)["type"] as? String == "https://hearclear.app/problems/malformed")
    }

    @Test("a start that is not RFC 3339 is 400")
    func badStart() async throws {
        let audio = try TestAudio.sine(seconds: 1, sampleRate: 8000)

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter?start=yesterday", method: .post, headers: Self.wavHeaders,
                body: ByteBuffer(data: audio))
        }

        #expect(response.status == .badRequest)
    }

    @Test("with a limit of 10 minutes, 10 minutes of audio is metered; 11 minutes is 422 audio-too-long")
    func duration() async throws {
        let tenMinutes = try TestAudio.silence(seconds: 600)
        let elevenMinutes = try TestAudio.silence(seconds: 660)

        let (ten, eleven) = try await MeterServer.withRouter(configure: { $0.meterMaxDuration = .seconds(600) }) {
            client in
            (
                try await client.execute(
                    uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: tenMinutes)),
                try await client.execute(
                    uri: "/api/v2/meter", method: .post, headers: Self.wavHeaders, body: ByteBuffer(data: elevenMinutes)
                )
            )
        }

        #expect(ten.status == .ok)
        #expect(MeterAnswer(ten).samples.count == 600)
        #expect(MeterAnswer(ten).levels("average").allSatisfy { $0 == -160 })
        #expect(eleven.status == .unprocessableContent)
        let problem = MeterAnswer(eleven)
        #expect(problem["type"] as? String == "https://hearclear.app/problems/audio-too-long")
        #expect((problem["detail"] as? String)?.contains("660.0 s") == true)
    }

    @Test("a gzip-encoded body is metered too")
    func gzipBody() async throws {
        var audio = ByteBuffer(data: try TestAudio.sine(dBFS: -20, seconds: 2, sampleRate: 16000))
        let compressed = try audio.compress(with: .gzip())

        let response = try await MeterServer.withRouter { client in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: [.contentType: "audio/wav", .contentEncoding: "gzip"],
                body: compressed)
        }

        #expect(response.status == .ok)
        #expect(MeterAnswer(response).levels("average").allSatisfy { abs($0 - -23.01) <= 0.05 })
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = Foundation.pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
