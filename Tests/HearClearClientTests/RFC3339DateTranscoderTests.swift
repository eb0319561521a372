import Foundation
import HearClearClient
import Testing

@Suite("RFC 3339 dates of HearClearClient")
struct RFC3339DateTranscoderTests {
    static let utc = TimeZone(secondsFromGMT: 0)!
    /// 2026-11-21T10:03:04Z.
    static let instant = Date(timeIntervalSince1970: 1_795_255_384)

    @Test("written in UTC with Z, milliseconds only when there are some")
    func utcAndMilliseconds() throws {
        let transcoder = RFC3339DateTranscoder(timeZone: Self.utc)
        #expect(try transcoder.encode(Self.instant) == "2026-11-21T10:03:04Z")
        #expect(try transcoder.encode(Self.instant.addingTimeInterval(0.25)) == "2026-11-21T10:03:04.250Z")
        #expect(try transcoder.encode(Self.instant.addingTimeInterval(0.0004)) == "2026-11-21T10:03:04Z")
        #expect(try transcoder.encode(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test("written at the zone's offset at that instant")
    func offsets() throws {
        #expect(
            try RFC3339DateTranscoder(timeZone: TimeZone(secondsFromGMT: 11 * 3600)!).encode(Self.instant)
                == "2026-11-21T21:03:04+11:00")
        #expect(
            try RFC3339DateTranscoder(timeZone: TimeZone(secondsFromGMT: -(3 * 3600 + 30 * 60))!).encode(Self.instant)
                == "2026-11-21T06:33:04-03:30")
        let sydney = RFC3339DateTranscoder(timeZone: TimeZone(identifier: "Australia/Sydney")!)
        #expect(try sydney.encode(Self.instant) == "2026-11-21T21:03:04+11:00")
        #expect(try sydney.encode(Date(timeIntervalSince1970: 1_782_000_000)) == "2026-06-21T10:00:00+10:00")
    }

    @Test("read with or without a fraction, at any offset")
    func decoding() throws {
        let transcoder = RFC3339DateTranscoder(timeZone: Self.utc)
        for text in [
            "2026-11-21T10:03:04Z", "2026-11-21T21:03:04+11:00", "2026-11-21t06:33:04-03:30", "2026-11-21 10:03:04z",
        ] {
            #expect(try transcoder.decode(text) == Self.instant, "\(text)")
        }
        #expect(try transcoder.decode("2026-11-21T10:03:04.25Z") == Self.instant.addingTimeInterval(0.25))
        let written = try transcoder.encode(Self.instant.addingTimeInterval(0.123))
        #expect(try transcoder.encode(transcoder.decode(written)) == written)
        for bad in ["2026-11-21", "2026-11-21T10:03:04", "2026-13-21T10:03:04Z", "2026-11-21T10:03:04+1100", "x"] {
            #expect(throws: DecodingError.self, "\(bad)") { try transcoder.decode(bad) }
        }
    }
}
