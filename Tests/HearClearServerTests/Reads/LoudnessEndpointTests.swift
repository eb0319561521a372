import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

@Suite("Loudness endpoints: submit, aggregate, read")
struct LoudnessEndpointTests {
    /// A submission shows in the grid because ingest's NOTIFY wakes the worker: with the worker's
    /// poll an hour away, a second check-in, sent once the first was judged, can be judged in
    /// the test's time only if the notification woke it. (How soon is the load test's to
    /// measure: `hearclear loadtest`, not a timer in a test.)
    @Test("a submitted check-in shows in the grid, judged when ingest's NOTIFY wakes the worker")
    func aSubmittedCheckinShowsInTheGrid() async throws {
        try await EngineTestApp.run(configure: { $0.engine.workerPollInterval = .seconds(3600) }) { client, _ in
            let checkin = CheckinFixture(
                venue: "arms", device: "c0ffee00-1111", levelDBFS: -45, start: SubmissionFixture.previousHourStart)
            let before = try await client.execute(uri: "/api/v2/venues/arms/loudness", method: .get) { $0.status }

            #expect(try await checkin.submit(to: client) == .created)
            let grid = try await eventually("the grid") {
                try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client)
            }
            let second = CheckinFixture(
                venue: "arms", device: "c0ffee00-2222", levelDBFS: -45, start: SubmissionFixture.previousHourStart)
            #expect(try await second.submit(to: client) == .created)
            _ = try await eventually("the second check-in judged, woken by its NOTIFY") {
                let body = try await JSONProbe.get("/api/v2/checkins/\(second.id.uuidString)", from: client)
                return body?["status"] as? String == "pending" ? nil : true
            }

            #expect(before == .notFound)
            #expect(grid["venue"] as? String == "arms")
            #expect(grid["timezone"] as? String == "Australia/Sydney")
            #expect(grid["unit"] as? String == "dB")
            let bands = try #require(grid["bands"] as? [[String: Any]])
            #expect(bands.map { $0["label"] as? String } == ["quiet", "moderate", "loud", "very loud"])
            #expect(bands.last?["below"] == nil)
            let days = try #require(grid["days"] as? [[String: Any]])
            #expect(days.map { $0["day"] as? String } == [checkin.localHour.weekdayName])
            // −45 dBFS (Leq −45.03) + 110 dB reference offset, model offset 0.
            let cell = try #require(
                JSONProbe.cell(grid, day: checkin.localHour.weekdayName, hour: checkin.localHour.hour))
            #expect(cell["level"] as? Double == 65.0)
            #expect(cell["label"] as? String == "quiet")
            // 64.967 ± 1.96 × 1 dB (the scale floor) / √1 device.
            #expect(cell["range"] as? [Double] == [63.0, 66.9])
            #expect(cell["checkins"] as? Int == 1)
            #expect(cell["devices"] as? Int == 1)
            #expect(cell["confidence"] as? String == "low")
        }
    }

    @Test func theCheckinVenueAndBandsShowTheJudgement() async throws {
        try await EngineTestApp.run { client, _ in
            let checkin = CheckinFixture(
                venue: "arms", device: "c0ffee00-1111", levelDBFS: -45, start: SubmissionFixture.previousHourStart)
            try await checkin.submit(to: client)

            let judged = try await eventually("the judgement") {
                let body = try await JSONProbe.get("/api/v2/checkins/\(checkin.id.uuidString)", from: client)
                return body?["status"] as? String == "pending" ? nil : body
            }
            let venue = try #require(try await JSONProbe.get("/api/v2/venues/arms", from: client))
            let bands = try #require(try await JSONProbe.get("/api/v2/bands", from: client))

            #expect(judged["status"] as? String == "included")
            #expect(judged["reasons"] as? [String] == [])
            #expect(judged["validSeconds"] as? Int == 120)
            #expect(judged["levelDBFS"] as? Double == -45.0)
            #expect(judged["level"] as? Double == 65.0)
            #expect(judged["label"] as? String == "quiet")
            #expect(venue["level"] as? Double == 65.0)
            #expect(venue["label"] as? String == "quiet")
            #expect(venue["checkins"] as? Int == 1)
            #expect((bands["bands"] as? [[String: Any]])?.first?["below"] as? Double == 70)
        }
    }

    @Test func anUnknownVenueOrOneWithoutDataIs404() async throws {
        try await EngineTestApp.run { client, _ in
            let venue = ByteBuffer(string: #"{"name": "Empty", "latitude": 1, "longitude": 2}"#)
            try await client.execute(
                uri: "/api/v2/venues/empty", method: .put, headers: [.contentType: "application/json"], body: venue)

            let unknown = try await client.execute(uri: "/api/v2/venues/nowhere/loudness", method: .get) { $0 }
            let empty = try await client.execute(uri: "/api/v2/venues/empty/loudness", method: .get) { $0 }

            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
            #expect(empty.status == .notFound)
            #expect(try JSONProbe.object(empty.body)["type"] as? String == "https://hearclear.app/problems/not-found")
        }
    }

    @Test func theETagAnswers304AndABandChangeShowsAtOnce() async throws {
        try await EngineTestApp.run { client, database in
            let checkin = CheckinFixture(
                venue: "arms", device: "c0ffee00-1111", levelDBFS: -45, start: SubmissionFixture.previousHourStart)
            try await checkin.submit(to: client)
            let uri = "/api/v2/venues/arms/loudness"
            _ = try await eventually("the grid") { try await JSONProbe.get(uri, from: client) }
            let first = try await client.execute(uri: uri, method: .get) { $0 }
            let tag = try #require(first.headers[.eTag])

            let unchanged = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { $0 }
            // quiet < 60 instead of < 70: the 65 dB cell becomes "moderate" with no recomputation.
            try await database.query("UPDATE bands SET below_db = 60 WHERE position = 0", logger: EngineTestApp.logger)
            // Answers are cached and never expire: the change can show only once its NOTIFY is heard.
            let changed = try await eventually("the band change") {
                let response = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { $0 }
                return response.status == .notModified ? nil : response
            }

            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
            #expect(unchanged.status == .notModified)
            #expect(unchanged.body.readableBytes == 0)
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != tag)
            let grid = try JSONProbe.object(changed.body)
            let cell = JSONProbe.cell(grid, day: checkin.localHour.weekdayName, hour: checkin.localHour.hour)
            #expect(cell?["label"] as? String == "moderate")
            #expect(cell?["level"] as? Double == 65.0)
        }
    }

    @Test func anOutlierIsFlaggedWithItsReasonAndLeavesTheCellUnchanged() async throws {
        try await EngineTestApp.run { client, _ in
            let start = SubmissionFixture.previousHourStart
            let honest = [-45, -46, -44, -45.5, -44.5].enumerated().map { index, level in
                CheckinFixture(venue: "arms", device: "honest-device-\(index)", levelDBFS: level, start: start)
            }
            for checkin in honest { try await checkin.submit(to: client) }
            let hour = honest[0].localHour
            let uri = "/api/v2/venues/arms/loudness"
            let before = try await eventually("five check-ins in the cell") {
                let grid = try await JSONProbe.get(uri, from: client)
                let cell = grid.flatMap { JSONProbe.cell($0, day: hour.weekdayName, hour: hour.hour) }
                return cell?["checkins"] as? Int == 5 ? cell : nil
            }

            let loud = CheckinFixture(venue: "arms", device: "always-full-scale", levelDBFS: -20, start: start)
            try await loud.submit(to: client)
            let judged = try await eventually("the loud check-in's judgement") {
                let body = try await JSONProbe.get("/api/v2/checkins/\(loud.id.uuidString)", from: client)
                return body?["status"] as? String == "pending" ? nil : body
            }
            let grid = try #require(try await JSONProbe.get(uri, from: client))
            let after = try #require(JSONProbe.cell(grid, day: hour.weekdayName, hour: hour.hour))

            #expect(judged["status"] as? String == "outlier")
            #expect(judged["reasons"] as? [String] == ["cell_outlier"])
            #expect(after["level"] as? Double == before["level"] as? Double)
            #expect(after["range"] as? [Double] == before["range"] as? [Double])
            #expect(after["checkins"] as? Int == 5)
            #expect(after["devices"] as? Int == 5)
            #expect(after["confidence"] as? String == before["confidence"] as? String)
        }
    }
}
