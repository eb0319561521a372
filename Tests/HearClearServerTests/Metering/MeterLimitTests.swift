import Foundation
import HTTPTypes
import HearClearHTTP
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

@testable import HearClearEngine

/// The meter's body limits over a real socket: a body in a format held whole (here filler bytes,
/// which cannot be told from a format before they end) up to 50 MiB, a declared length up to
/// 4 GiB (a WAV or FLAC is metered as it arrives), and every other route keeps its 1 MiB.
@Suite("Meter body limits")
struct MeterLimitTests {
    static let meterLimit = BodyLimits.meterBytes

    @Test("a streamed body past 50 MiB is 413 before the body ends, and the server keeps serving")
    func streamedPastLimit() async throws {
        let (outcome, health) = try await MeterServer.withLive { client, _ in
            let port = try #require(client.port)
            let outcome = try await StreamingUpload.post(
                port: port, path: "/api/v2/meter", contentType: "audio/wav", maxBytes: 4 * Self.meterLimit,
                holdAfter: Self.meterLimit + (1 << 20))
            return (outcome, try await client.execute(uri: "/health", method: .get))
        }

        #expect(outcome.status == 413)
        #expect(outcome.head.contains("application/problem+json"))
        // The answer came while the sender held the body open just past the limit: nothing waited for its end.
        #expect(outcome.bodyBytesSent == Self.meterLimit + (1 << 20))
        #expect(health.status == .ok)
    }

    @Test("a Content-Length over 4 GiB is 413 from the head alone, before any of the body is sent")
    func declaredPastLimit() async throws {
        let outcome = try await MeterServer.withLive { client, _ in
            try await StreamingUpload.post(
                port: try #require(client.port), path: "/api/v2/meter", contentType: "audio/wav",
                declaredLength: BodyLimits.meterStreamedBytes + 1, maxBytes: BodyLimits.meterStreamedBytes + 1,
                holdAfter: 0)
        }

        #expect(outcome.status == 413)
        #expect(outcome.bodyBytesSent == 0)
    }

    @Test("audio over 1 MiB is metered on /api/v2/meter, while /api/v2/checkins keeps its 1 MiB limit")
    func otherRoutesKeepOneMiB() async throws {
        let audio = try TestAudio.sine(dBFS: -20, seconds: 24, sampleRate: 48000)
        let tooLargeCheckin = ByteBuffer(repeating: UInt8(ascii: " "), count: BodyLimits.wireBytes + 1)

        let (meter, checkin) = try await MeterServer.withLive { client, _ in
            (
                // A bare socket that waits as long as metering takes (the test client gives up
                // after 20 s, which a loaded machine metering 24 s of audio can pass).
                try await StreamingUpload.exchange(
                    port: try #require(client.port), path: "/api/v2/meter", contentType: "audio/wav",
                    content: ByteBuffer(data: audio), chunked: false),
                try await client.execute(
                    uri: "/api/v2/checkins", method: .post, headers: [.contentType: "application/json"],
                    body: tooLargeCheckin)
            )
        }

        #expect(audio.count > BodyLimits.wireBytes)
        #expect(meter.status == 200)
        #expect(MeterAnswer(json: Data(meter.body.readableBytesView)).samples.count == 24)
        #expect(checkin.status == .contentTooLarge)
    }

    @Test("a streamed check-in body past 1 MiB is 413")
    func streamedCheckinPastOneMiB() async throws {
        let outcome = try await MeterServer.withLive { client, _ in
            try await StreamingUpload.post(
                port: try #require(client.port), path: "/api/v2/checkins", contentType: "application/json",
                maxBytes: 8 * BodyLimits.wireBytes, holdAfter: 2 * BodyLimits.wireBytes, chunkBytes: 64 << 10)
        }

        #expect(outcome.status == 413)
        #expect(outcome.bodyBytesSent == 2 * BodyLimits.wireBytes)
    }
}
