import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

@testable import HearClearEngine

@Suite("Excluding and including a device")
struct DeviceExclusionTests {
    private static let uris = ["/api/v2/venues/arms/loudness", "/api/v2/venues/bar/loudness"]

    /// The one cell of each venue's grid once it holds `checkins` check-ins.
    private func cells(checkins: Int, client: some TestClientProtocol) async throws -> [[String: Any]] {
        var cells: [[String: Any]] = []
        for uri in Self.uris {
            cells.append(
                try await eventually("\(checkins) check-ins at \(uri)") {
                    let days = try await JSONProbe.get(uri, from: client)?["days"] as? [[String: Any]]
                    let cell = (days?.first?["hours"] as? [[String: Any]])?.first
                    return cell?["checkins"] as? Int == checkins ? cell : nil
                })
        }
        return cells
    }

    @Test func excludingRemovesItsCheckinsFromEveryCellAndIncludingRestoresThem() async throws {
        try await EngineTestApp.run { client, database in
            let start = SubmissionFixture.previousHourStart
            var suspect: [CheckinFixture] = []
            // The bar ten minutes after the arms, in the same hour: a phone is at one venue at a time.
            for (venue, start) in [("arms", start), ("bar", start.addingTimeInterval(600))] {
                for (device, level) in [("steady-one", -45.0), ("steady-two", -46.0)] {
                    try await CheckinFixture(venue: venue, device: device, levelDBFS: level, start: start).submit(
                        to: client)
                }
                // Loud, but not an outlier among three (|modified z| = 2.0).
                let checkin = CheckinFixture(venue: venue, device: "suspect-device", levelDBFS: -42, start: start)
                try await checkin.submit(to: client)
                suspect.append(checkin)
            }
            let before = try await cells(checkins: 3, client: client)
            let admin = Engine.testing(database).devices

            let excluded = try await admin.setExcluded("suspect-device", excluded: true, note: "test")
            let without = try await cells(checkins: 2, client: client)
            let judged = try #require(
                try await JSONProbe.get("/api/v2/checkins/\(suspect[0].id.uuidString)", from: client))
            let included = try await admin.setExcluded("suspect-device", excluded: false)
            let restored = try await cells(checkins: 3, client: client)

            guard case .changed(let key, let venues) = excluded else {
                Issue.record("expected a change, got \(excluded)")
                return
            }
            #expect(venues == 2)
            #expect(included == .changed(key: key, venues: 2))
            #expect(judged["status"] as? String == "excluded")
            #expect(judged["reasons"] as? [String] == ["device_excluded"])
            #expect(without.allSatisfy { $0["devices"] as? Int == 2 })
            #expect(zip(before, without).allSatisfy { $0["level"] as? Double != $1["level"] as? Double })
            #expect(zip(before, restored).allSatisfy { $0["level"] as? Double == $1["level"] as? Double })
            #expect(try await admin.setExcluded("suspect-device", excluded: false) == .unchanged(key: key))
            #expect(try await admin.setExcluded("no-such-device", excluded: true) == .notFound)
        }
    }

    @Test func theDeviceListShowsShortIdsExclusionAndBias() async throws {
        try await EngineTestApp.run { client, database in
            let start = SubmissionFixture.previousHourStart
            for (device, level) in [
                ("c0ffee00-aaaa-bbbb", -45.0), ("c0ffee00-cccc-dddd", -46.0), ("loud-device-xyz", -42.0),
            ] {
                try await CheckinFixture(venue: "arms", device: device, levelDBFS: level, start: start).submit(
                    to: client)
            }
            _ = try await cells(checkins: 3, client: client, only: Self.uris[0])
            let devices = Engine.testing(database).devices
            _ = try await devices.setExcluded("loud-device-xyz", excluded: true)

            let reports = try await devices.reports()
            let excludedOnly = try await devices.reports(excludedOnly: true)

            #expect(reports.count == 3)
            #expect(reports.allSatisfy { !$0.shortID.contains("c0ffee00-") && $0.shortID.contains("…") })
            let loud = try #require(reports.first { $0.excluded })
            // Shortened from the keyed id (docs/PRIVACY.md), nothing of what the phone sent.
            #expect(loud.shortID == DeviceIdentity.shortened(DeviceKey.tests.keyed("loud-device-xyz")))
            #expect(!loud.shortID.hasPrefix("loud"))
            #expect(loud.checkins == 1)
            // −42 against the other two devices' −45.5: +3.5 dB over one co-located check-in.
            #expect(abs((loud.bias.biasDB ?? 0) - 3.5) < 0.01)
            #expect(loud.bias.checkinCount == 1)
            #expect(!loud.bias.isFlagged)
            #expect(excludedOnly.map(\.key) == [loud.key])
        }
    }

    private func cells(checkins: Int, client: some TestClientProtocol, only uri: String) async throws -> [String: Any] {
        try await eventually("\(checkins) check-ins at \(uri)") {
            let days = try await JSONProbe.get(uri, from: client)?["days"] as? [[String: Any]]
            let cell = (days?.first?["hours"] as? [[String: Any]])?.first
            return cell?["checkins"] as? Int == checkins ? cell : nil
        }
    }
}
