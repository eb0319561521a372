import Foundation
import HearClearModel
import Testing

@testable import HearClearServer

/// A search cursor is written by hand (``JSONWriter``) as `JSONEncoder` with sorted keys writes
/// it, so cursors made before and after are the same, and it reads back.
@Suite("Search cursors")
struct SearchCursorTests {
    @Test func writtenAsJSONEncoderWritesIt() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var generator = SystemRandomNumberGenerator()
        for round in 0..<2_000 {
            let cursor = SearchCursor(
                fingerprint: String(UInt64.random(in: 0...UInt64.max, using: &generator), radix: 16),
                at: round % 3 == 0
                    ? nil
                    : Date(timeIntervalSince1970: Double.random(in: 946_684_800...4_102_444_800, using: &generator)),
                position: .init(
                    levelDB: round % 2 == 0 ? nil : (Double.random(in: 0...200, using: &generator) * 10).rounded() / 10,
                    distanceMetres: round % 5 == 0 ? 0 : Double.random(in: 0...50_000, using: &generator),
                    venueID: Int64.random(in: 1...Int64.max, using: &generator)))
            #expect(cursor.json == Array(try encoder.encode(cursor)), "\(cursor)")
            #expect(SearchCursor(encoded: cursor.encoded) == cursor)
            #expect(!cursor.encoded.contains { "+/=".contains($0) })
        }
    }
}
