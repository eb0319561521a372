import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HearClearEngine

@Suite("Loudness grid caching with compression")
struct LoudnessCachingTests {
    @Test func aGzippedGridHasItsOwnStrongTagAndStillAnswers304() async throws {
        try await EngineTestApp.run { client, database in
            // Twelve hours with data make the grid larger than the 1 KiB compression threshold.
            let intake = Engine.testing(database).intake
            let start = SubmissionFixture.previousHourStart.addingTimeInterval(-86_400)
            for hour in 0..<12 {
                let submission = SubmissionFixture.submission(
                    venue: "busy", timezone: "Europe/Paris", device: "device-\(hour)", levelDBFS: -40,
                    start: start.addingTimeInterval(Double(hour) * 3_600), seconds: 60)
                _ = try await intake.submit(submission)
            }
            let uri = "/api/v2/venues/busy/loudness"
            _ = try await eventually("twelve cells") {
                let days = try await JSONProbe.get(uri, from: client)?["days"] as? [[String: Any]] ?? []
                let cells = days.map { ($0["hours"] as? [Any])?.count ?? 0 }.reduce(0, +)
                return cells == 12 ? true : nil
            }

            let zipped = try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: "gzip"]) { $0 }
            let plain = try await client.execute(uri: uri, method: .get) { $0 }
            let zippedTag = try #require(zipped.headers[.eTag])
            let plainTag = try #require(plain.headers[.eTag])
            let revalidated = try await client.execute(
                uri: uri, method: .get, headers: [.acceptEncoding: "gzip", .ifNoneMatch: zippedTag]
            ) { $0 }

            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(zippedTag == String(plainTag.dropLast()) + "-gzip\"")
            #expect(revalidated.status == .notModified)
            #expect(revalidated.headers[.eTag] == zippedTag)
        }
    }
}
