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

            // Two uploads held open mid-body: whichever arrives first has the one slot and waits
            // for the rest of its body; the other is answered at once. Which, the machine decides;
            // that one is refused, never.
            let port = try #require(client.port)
            let first = ByteBuffer(data: long.prefix(44 + 10 * 16000))
            let held = [
                try await StreamingUpload.hold(
                    port: port, path: "/api/v2/meter", contentType: "audio/wav", first: first),
                try await StreamingUpload.hold(
                    port: port, path: "/api/v2/meter", contentType: "audio/wav", first: first),
            ]
            let (refused, head, body) = try await withThrowingTaskGroup(of: (Int, String, String).self) { group in
                for (index, upload) in held.enumerated() {
                    group.addTask {
                        let answer = try await upload.response()
                        return (index, answer.head, answer.body)
                    }
                }
                let answered = try #require(try await group.next())
                // The other, which holds the slot, is not answered until its body ends: let it go.
                try await held[1 - answered.0].close()
                while (try? await group.next()) != nil {}
                return answered
            }
            let lines = head.lowercased().split(separator: "\r\n")
            #expect(lines.first?.hasPrefix("http/1.1 503") == true, "\(head)")
            #expect(lines.contains("retry-after: 2"), "\(head)")
            #expect(lines.contains("content-type: application/problem+json"), "\(head)")
            let problem = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            #expect((problem?["type"] as? String)?.hasSuffix("/busy") == true)
            #expect((problem?["detail"] as? String)?.contains("meters 1 recordings at once") == true)
            try await held[refused].close()

            // The holder broke off: its meter ends and gives the slot back.
            let answer = try await eventually("the slot given back") { () async throws -> TestResponse? in
                let answer = try await meterSmall()
                return answer.status == .ok ? answer : nil
            }
            #expect(MeterAnswer(json: Data(answer.body.readableBytesView)).samples.count == 2)
        }
    }
}
