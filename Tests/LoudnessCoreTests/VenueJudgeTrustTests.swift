import Foundation
import Testing

@testable import LoudnessCore

/// Fresh ids at a venue (docs/ARCHITECTURE.md, "Devices that earn trust", "Campaigns"): what they
/// weigh in its cells, and the campaign they make.
@Suite("Venue judge: trust")
struct VenueJudgeTrustTests {
    private let mondayNine = LocalHour(weekday: 1, hour: 21)

    /// Fourteen established phones about −40 dBFS (SD about 2 dB) and `fakes` fresh ids one
    /// check-in each `fakeDB` from it (±1.5 dB).
    private func venue(fakes: Int, fakeDB: Double) throws -> [VenueCheckin] {
        let spread: [Double] = [0, 2, -2, 1, -1, 3, -3, 0.5, -0.5, 2.5, -2.5, 1.5, -1.5, 0]
        var checkins = try spread.enumerated().map { index, delta in
            var checkin = try VenueCheckinFactory.checkin("h\(index)", device: "phone\(index)", levelDBFS: -40 + delta)
            checkin.device = DeviceStanding(trust: 1, established: true, checksInElsewhere: true)
            return checkin
        }
        for index in 0..<fakes {
            var checkin = try VenueCheckinFactory.checkin(
                "f\(index)", device: "fake\(index)", levelDBFS: -40 + fakeDB + [0, 1.5, -1.5][index % 3])
            checkin.device = DeviceStanding(trust: DeviceTrust.floor, established: false, checksInElsewhere: false)
            checkins.append(checkin)
        }
        return checkins
    }

    @Test(arguments: [-12.0, 12.0])
    func thirtyPercentFakesMoveTheCellLessThanADecibel(fakeDB: Double) throws {
        // 6 fakes among 20 check-ins: 30 %.
        let honest = try #require(VenueJudge().judge(try venue(fakes: 0, fakeDB: fakeDB)).cells[mondayNine])
        let attacked = VenueJudge().judge(try venue(fakes: 6, fakeDB: fakeDB))
        let cell = try #require(attacked.cells[mondayNine])
        #expect(abs(cell.levelDB - honest.levelDB) < 1.0)
        // Every device alike (today's method): the same fakes move it further.
        let plain = try #require(VenueJudge.plain.judge(try venue(fakes: 6, fakeDB: fakeDB)).cells[mondayNine])
        #expect(abs(plain.levelDB - honest.levelDB) > abs(cell.levelDB - honest.levelDB))
        // And they are a campaign, with what they move and would move.
        let campaign = try #require(attacked.campaign)
        #expect(campaign.direction == (fakeDB < 0 ? .quieter : .louder))
        #expect(campaign.devices.count == 6)
        #expect(campaign.movesDB < campaign.wouldMoveDB)
    }

    @Test func anEstablishedPhoneAndAnHonestNewcomerNearTheLevelMakeNoCampaign() throws {
        // Six fresh ids within 1.5 dB of the level: newcomers, not a campaign.
        let judged = VenueJudge().judge(try venue(fakes: 6, fakeDB: 0))
        #expect(judged.campaign == nil)
    }
}
