import Foundation
import HearClearModel
import LoudnessCore
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// `JSONWriter` writes the search answer by hand; it must write exactly what `JSONEncoder.api`
/// (Foundation's encoder, sorted keys) writes for the same body, byte for byte.
@Suite("JSONWriter")
struct JSONWriterTests {
    static func venue(_ id: Int64, name: String, address: String?, category: String?) -> Venue {
        Venue(
            id: id, externalID: "v-\(id)", name: name, latitude: -33.871234, longitude: 151.2,
            timezone: id % 2 == 0 ? "Australia/Sydney" : nil, address: address, category: category,
            createdAt: Date(timeIntervalSince1970: 1_794_996_000.25),
            updatedAt: Date(timeIntervalSince1970: 1_794_996_123))
    }

    static func cell(basis: PatternEstimate.Basis?) -> LoudnessReads.Cell {
        LoudnessReads.Cell(
            localHour: LocalHour(weekday: 5, hour: 21), levelDB: 63.8, unroundedLevelDB: 63.84,
            rangeDB: 59.1...70, label: "quiet", checkins: basis == nil ? 3 : 0, devices: basis == nil ? 2 : 0,
            confidence: basis == nil ? "medium" : "low", basis: basis)
    }

    static func body(at: Date?, next: String?) -> SearchBody {
        let hits = [
            VenueFinder.Hit(
                venue: venue(
                    1, name: "Quote \" back\\slash / slash\nline\ttab\u{1}\u{1f} é ü 🎧", address: nil,
                    category: "pub"),
                checkins: 12, distanceMetres: 1500, overall: (71.5, "moderate"), cell: cell(basis: nil),
                position: .init(levelDB: nil, distanceMetres: 1500, venueID: 1)),
            VenueFinder.Hit(
                venue: venue(2, name: "Plain", address: "1 George St", category: nil), checkins: 0,
                distanceMetres: 0.1 + 0.2, overall: nil, cell: cell(basis: .categoryNearby),
                position: .init(levelDB: nil, distanceMetres: 0.3, venueID: 2)),
            VenueFinder.Hit(
                venue: venue(3, name: "", address: "\r\u{8}\u{c}", category: "café"), checkins: 1,
                distanceMetres: 1e-7, overall: (80, "very loud"), cell: nil,
                position: .init(levelDB: nil, distanceMetres: 1e-7, venueID: 3)),
        ]
        return SearchBody(
            near: .init(latitude: -33.86, longitude: 151.22), radius: 1500, at: at, sort: "distance",
            results: hits.map(SearchBody.Result.init), next: next)
    }

    @Test func writesWhatTheEncoderWrites() throws {
        for body in [
            Self.body(at: Date(timeIntervalSince1970: 1_794_996_000), next: "/api/v2/venues?near=1,2&cursor=abc_-"),
            Self.body(at: nil, next: nil),
            SearchBody(
                near: .init(latitude: 0, longitude: -0.0), radius: 0.5, at: nil, sort: "level", results: [], next: nil),
        ] {
            var writer = JSONWriter()
            body.write(to: &writer)
            let encoded = try JSONEncoder.api.encode(body)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
        }
    }
}
