import AudioMetering
import CSndFile
import Foundation
import Testing

@Suite("Errors carry libsndfile's message")
struct ErrorTests {
    static let unrecognised = String(cString: sf_error_number(Int32(SF_ERR_UNRECOGNISED_FORMAT)))

    @Test func garbageBytesAreUnreadable() {
        let garbage = Data(
            TestSignal.noise(amplitude: 1, count: 1000, seed: 7).map { UInt8(bitPattern: Int8($0 * 127)) })

        #expect(throws: AudioMeteringError.unreadable(libsndfileMessage: Self.unrecognised)) {
            try AudioMeter.measure(garbage)
        }
    }

    @Test func emptyDataIsUnreadable() {
        #expect(throws: AudioMeteringError.unreadable(libsndfileMessage: Self.unrecognised)) {
            try AudioMeter.measure(Data())
        }
    }

    @Test func corruptHeaderCarriesLibsndfileMessage() throws {
        var bytes = try AudioEncoder.encode(
            TestSignal.silence(sampleRate: 8000, seconds: 1), channelCount: 1, sampleRate: 8000)
        bytes.replaceSubrange(20..<24, with: [0xFF, 0xFF, 0xFF, 0xFF])  // fmt chunk: format tag and channel count

        let error = #expect(throws: AudioMeteringError.self) { try AudioMeter.measure(bytes) }

        guard case .unreadable(let message) = error else {
            Issue.record("expected .unreadable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("WAV"), "libsndfile names the container it gave up on: \(message)")
    }

    @Test func truncatedFileDecodesWhatIsThere() throws {
        let bytes = try AudioEncoder.encode(
            TestSignal.sine(hz: 1000, sampleRate: 8000, seconds: 3), channelCount: 1, sampleRate: 8000)

        let result = try AudioMeter.measure(bytes.prefix(44 + 2 * 8000 * 2))

        #expect(result.format.frameCount == 2 * 8000)
        #expect(result.samples.count == 2)
    }

    @Test func longerThanMaxDurationIsRejectedFromTheHeader() throws {
        let bytes = try AudioEncoder.encode(
            TestSignal.silence(sampleRate: 8000, seconds: 3), channelCount: 1, sampleRate: 8000)

        #expect(throws: AudioMeteringError.tooLong(durationSeconds: 3, limitSeconds: 2)) {
            try AudioMeter.measure(bytes, maxDuration: .seconds(2))
        }
        #expect(try AudioMeter.measure(bytes, maxDuration: .seconds(3)).samples.count == 3)
    }
}
