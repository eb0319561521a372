import Foundation
import Testing

@testable import HearClearEngine

/// `RFC3339.format` and `append` (what every document's dates are written with), against dates
/// worked out by hand and Foundation's ISO 8601 formatter.
@Suite("RFC 3339 dates written")
struct RFC3339FormatTests {
    @Test func handWorkedInstants() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        // 1,795,813,200 s = 20,784 days + 75,600 s: 2026-11-27 21:00.
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_813_200)) == "2026-11-27T21:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_813_200.25)) == "2026-11-27T21:00:00.250Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_813_200.007)) == "2026-11-27T21:00:00.007Z")
        // One second before 1970, and the last second of 2099.
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 4_102_444_799)) == "2099-12-31T23:59:59Z")
        var bytes = Array("x".utf8)
        RFC3339.append(Date(timeIntervalSince1970: 951_782_400), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x2000-02-29T00:00:00Z")
    }

    @Test func agreesWithFoundationOnWholeSeconds() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(
                timeIntervalSince1970: Double(Int64.random(in: -2_000_000_000...4_102_444_799, using: &generator)))
            #expect(RFC3339.format(date) == formatter.string(from: date))
        }
    }
}
