import Foundation
import HTTPTypes
import HearClearHTTP
import HearClearServer
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

/// `POST /api/v2/meter` over a real socket, with the body chunked as a phone or `curl -T -`
/// streams it: metered as it arrives, the same answer as the whole body, refused as soon as it
/// breaks a limit.
@Suite("Meter streaming")
struct MeterStreamingTests {
    @Test("a chunked WAV and FLAC upload answers exactly as the same bytes sent whole")
    func chunkedEqualsWhole() async throws {
        let wav = try TestAudio.sine(hz: 250, dBFS: -18, seconds: 31.6, sampleRate: 44100, channels: 2)
        let flac = try TestAudio.sine(
            hz: 2000, dBFS: -6, seconds: 12, sampleRate: 48000, channels: 1, format: TestAudio.flac16)

        let answers = try await MeterServer.withLive { client, _ in
            let port = try #require(client.port)
            // Both through a bare socket that waits as long as metering takes (a loaded machine
            // metered the 32 s WAV whole past the test client's 20 s).
            var answers: [(whole: StreamingUpload.Exchange, chunked: StreamingUpload.Exchange)] = []
            for (audio, type) in [(wav, "audio/wav"), (flac, "audio/flac")] {
                let whole = try await StreamingUpload.exchange(
                    port: port, path: "/api/v2/meter", contentType: type, content: ByteBuffer(data: audio),
                    chunked: false)
                let chunked = try await StreamingUpload.exchange(
                    port: port, path: "/api/v2/meter", contentType: type, content: ByteBuffer(data: audio),
                    chunkBytes: 10_007)
                answers.append((whole, chunked))
            }
            return answers
        }

        for (whole, chunked) in answers {
            #expect(whole.status == 200)
            #expect(chunked.status == 200)
            #expect(chunked.body == whole.body)
        }
        #expect(MeterAnswer(json: Data(answers[0].chunked.body.readableBytesView)).samples.count == 32)
        #expect(MeterAnswer(json: Data(answers[1].chunked.body.readableBytesView)).samples.count == 12)
    }

    @Test("a chunked WAV past the duration limit is 422 while the body is still held open: it was metered as it came")
    func tooLongAnsweredMidUpload() async throws {
        // 60 s of 8 kHz 16-bit mono: 16 000 bytes a second; the limit is 20 s, the sender holds after 40 s.
        let audio = try TestAudio.sine(hz: 440, dBFS: -12, seconds: 60, sampleRate: 8000)
        let holdAfter = 44 + 40 * 16000

        let outcome = try await MeterServer.withLive(configure: { $0.meterMaxDuration = .seconds(20) }) { client, _ in
            try await StreamingUpload.post(
                port: try #require(client.port), path: "/api/v2/meter", contentType: "audio/wav",
                maxBytes: audio.count, holdAfter: holdAfter, chunkBytes: 16000, content: ByteBuffer(data: audio))
        }

        #expect(outcome.status == 422)
        #expect(outcome.head.contains("application/problem+json"))
        // Answered while the sender held the rest back: the server did not wait for the body's end.
        #expect(outcome.bodyBytesSent == holdAfter)
    }

    @Test(
        "bytes that are not audio, with a Content-Length over 50 MiB, are 415 once libsndfile gives up, before the body ends"
    )
    func unreadableBeforeTheEnd() async throws {
        // libsndfile (mpg123) searches tens of MiB for an MPEG frame in bytes it does not know;
        // they are held meanwhile, as a format read whole (at most 50 MiB).
        let declared = BodyLimits.meterBytes + (8 << 20)
        let holdAfter = declared - (1 << 20)
        let outcome = try await MeterServer.withLive { client, _ in
            try await StreamingUpload.post(
                port: try #require(client.port), path: "/api/v2/meter", contentType: "audio/wav",
                declaredLength: declared, maxBytes: declared, holdAfter: holdAfter)
        }

        #expect(outcome.status == 415)
        #expect(outcome.head.contains("application/problem+json"))
        #expect(outcome.bodyBytesSent <= holdAfter)
    }

    @Test("the size limits' problem documents state them in seconds of audio as well as bytes")
    func limitsInSeconds() {
        let buffered = Problem(
            .tooLarge(bytes: BodyLimits.meterBytes + 1, limitBytes: BodyLimits.meterBytes, buffered: true))
        let streamed = Problem(
            .tooLarge(
                bytes: BodyLimits.meterStreamedBytes + 1, limitBytes: BodyLimits.meterStreamedBytes, buffered: false))

        #expect(buffered.status == .contentTooLarge && streamed.status == .contentTooLarge)
        // 52,428,800 bytes: 273 s of 192,000 bytes a second, 3,277 s of 16,000.
        #expect(
            buffered.detail?.contains(
                "52428800 bytes (about 4.6 minutes of 48 kHz stereo 16-bit PCM, 54.6 minutes of 128 kbit/s") == true)
        // 4,294,967,296 bytes: 22,370 s, 6.2 hours.
        #expect(streamed.detail?.contains("4294967296 bytes (about 6.2 hours of 48 kHz stereo 16-bit PCM") == true)
    }
}
