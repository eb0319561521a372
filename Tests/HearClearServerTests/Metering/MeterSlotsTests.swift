import Foundation
import HTTPTypes
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import NIOCore
import Testing

/// `--meter-max-concurrent`: each recording is metered on a thread of its own, so the server
/// meters only so many at once and answers the rest 503 `busy` before reading their bodies.
@Suite("Meter: recordings metered at once")
struct MeterSlotsTests {
    @Test("past the cap a recording is 503 busy with Retry-After; the slot comes back when the held one ends")
    func busyPastTheCap() async throws {
        // 2 s of 8 kHz 16-bit mono, metered at once; 60 s of it, of which the held upload sends 10.
        let small = try TestAudio.sine(hz: 1000, dBFS: -20, seconds: 2, sampleRate: 8000)
        let long = try TestAudio.sine(hz: 440, dBFS: -12, seconds: 60, sampleRate: 8000)

        let oneSlot: @Sendable (inout ServerConfiguration) -> Void = { $0.meterMaxConcurrent = 1 }
        try await MeterServer.withLive(configure: oneSlot) { client, _ in
            @Sendable func meterSmall() async throws -> TestResponse {
                try await client.execute(
                    uri: "/api/v2/meter", method: .post, headers: [.contentType: "audio/wav"],
                    body: ByteBuffer(data: small))
            }
            // One slot, and it is free: metered.
            #expect(try await meterSmall().status == .ok)

            let held = try await StreamingUpload.hold(
                port: try #require(client.port), path: "/api/v2/meter", contentType: "audio/wav",
                first: ByteBuffer(data: long.prefix(44 + 10 * 16000)))
            // Once the held upload has the slot (it may take a moment to arrive), the next is refused.
            let refused = try await eventually("a recording refused while the held one is metered") {
                () async throws -> TestResponse? in
                let answer = try await meterSmall()
                if answer.status == .serviceUnavailable { return answer }
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                return nil
            }
            #expect(refused.headers[.retryAfter] == "2")
            #expect(refused.headers[.contentType] == "application/problem+json")
            let problem = try JSONSerialization.jsonObject(with: Data(refused.body.readableBytesView)) as? [String: Any]
            #expect((problem?["type"] as? String)?.hasSuffix("/busy") == true)
            #expect((problem?["detail"] as? String)?.contains("meters 1 recordings at once") == true)

            // The held upload breaks off: its meter ends and gives the slot back.
            try await held.close()
            let answer = try await eventually("the slot given back") { () async throws -> TestResponse? in
                let answer = try await meterSmall()
                return answer.status == .ok ? answer : nil
            }
            #expect(MeterAnswer(json: Data(answer.body.readableBytesView)).samples.count == 2)
        }
    }
}
