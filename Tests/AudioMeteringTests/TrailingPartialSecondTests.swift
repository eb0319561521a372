import AudioMetering
import Testing

@Suite("Trailing partial second: kept from 0.5 s, dropped below")
struct TrailingPartialSecondTests {
    @Test(arguments: [
        (2.0, 2, TrailingPartialSecond.none),
        (2.6, 3, .included(seconds: 0.6)),
        (2.5, 3, .included(seconds: 0.5)),
        (2.4, 2, .dropped(seconds: 0.4)),
        (0.3, 0, .dropped(seconds: 0.3)),
    ])
    func rule(seconds: Double, sampleCount: Int, trailing: TrailingPartialSecond) throws {
        let sine = TestSignal.sine(hz: 1000, sampleRate: 8000, seconds: seconds)

        let result = try meter([sine], sampleRate: 8000)

        #expect(result.samples.count == sampleCount)
        #expect(result.trailingPartialSecond == trailing)
        #expect(result.format.durationSeconds == seconds)
    }

    @Test func includedPartSecondIsMeteredOverItsOwnLength() throws {
        let sine = TestSignal.sine(hz: 1000, dBFS: -20, sampleRate: 48000, seconds: 1.75)

        let result = try meter([sine], sampleRate: 48000)

        #expect(result.samples.map(\.offsetSeconds) == [0, 1])
        #expect(abs(result.samples[1].averageDBFS - (-20 - sineCrestDB)) < 0.01)
    }
}
