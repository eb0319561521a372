import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import Testing

@testable import HearClearEngine

@Suite("v1 volume and volinfo agree with v2")
struct LegacyLoudnessTests {
    private static let weekdayKeys = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    @Test func volumeIsNullUntilTwoCheckinsAndVolinfoLabelsMatchV2() async throws {
        try await EngineTestApp.run { client, database in
            let start = SubmissionFixture.previousHourStart
            let first = CheckinFixture(venue: "arms", device: "phone-one-0001", levelDBFS: -35, start: start)
            try await first.submit(to: client)
            _ = try await eventually("the first judgement") {
                try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client)
            }
            let lonely = try #require(try await JSONProbe.get("/api/v1/venue/arms", from: client))
            try await CheckinFixture(venue: "arms", device: "phone-two-0002", levelDBFS: -34, start: start)
                .submit(to: client)
            let grid = try await eventually("two check-ins") {
                let grid = try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client)
                let cell = grid.flatMap {
                    JSONProbe.cell($0, day: first.localHour.weekdayName, hour: first.localHour.hour)
                }
                return cell?["checkins"] as? Int == 2 ? grid : nil
            }
            // Louder bands so the cell sits in a different band from the default: still one rule.
            try await database.query("UPDATE bands SET below_db = 76 WHERE position = 1", logger: EngineTestApp.logger)
            // Cached answers, which never expire, follow once the change's NOTIFY is heard.
            _ = try await eventually("the band change") {
                let bands = try await JSONProbe.get("/api/v2/bands", from: client)?["bands"] as? [[String: Any]]
                return bands?[1]["below"] as? Double == 76 ? true : nil
            }
            let v1Venue = try #require(try await JSONProbe.get("/api/v1/venue/arms", from: client))
            let v1Volume = try #require(try await JSONProbe.get("/api/v1/venue/arms/volume", from: client))
            let v2Grid = try #require(try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client))
            let v2Venue = try #require(try await JSONProbe.get("/api/v2/venues/arms", from: client))

            #expect(lonely["volume"] is NSNull)
            let hour = first.localHour
            let v2Cell = try #require(JSONProbe.cell(v2Grid, day: hour.weekdayName, hour: hour.hour))
            let volinfo = try #require(v1Volume["volinfo"] as? [String: [[String: Any]]])
            #expect(Array(volinfo.keys) == [Self.weekdayKeys[hour.weekday - 1]])
            let entry = try #require(volinfo[Self.weekdayKeys[hour.weekday - 1]]?.first)
            #expect(entry["time"] as? String == String(format: "%02d:00", hour.hour))
            #expect(entry["label"] as? String == v2Cell["label"] as? String)
            #expect(v2Cell["label"] as? String == "moderate")
            #expect(JSONProbe.cell(grid, day: hour.weekdayName, hour: hour.hour)?["label"] as? String == "loud")
            // 75.5 dB calibrated − 110 dB reference: 10^(−34.5/20) = 0.0188365 (6 significant digits).
            #expect(v2Cell["level"] as? Double == 75.5)
            #expect(entry["average"] as? Double == 0.0188365)
            #expect(v1Venue["volume"] as? Double == 0.0188365)
            #expect(v2Venue["level"] as? Double == 75.5)
            let bounds = try await client.execute(uri: "/api/v1/venue/volume_bounds", method: .get) { response in
                try JSONSerialization.jsonObject(with: response.body.withUnsafeReadableBytes { Data($0) })
                    as? [[String: Any]] ?? []
            }
            let moderate = try #require(bounds.first { $0["name"] as? String == "moderate" })
            let average = try #require(entry["average"] as? Double)
            #expect(try #require(moderate["lowBound"] as? Double) <= average)
            #expect(average < (try #require(moderate["upBound"] as? Double)))
        }
    }
}
