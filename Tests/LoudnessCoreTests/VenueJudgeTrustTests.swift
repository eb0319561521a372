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

/// Fresh ids cannot vouch for each other, nor outvote an established phone, in the crowd fit's
/// trust (docs/ARCHITECTURE.md, "Devices that earn trust").
@Suite("Crowd fit: trust against Sybils")
struct CrowdFitTrustTests {
    @Test func freshIdsCannotTurnEstablishedPhonesNorAgreeBesideThem() throws {
        // One venue, 30 evenings (a cell each). Each evening: established phones 1 and 2 at the
        // true level −30 dBFS, and twelve fresh ids all 12 dB quieter, agreeing with each other:
        // 1.2 of trust together, more than either phone.
        var pieces: [CrowdPiece] = []
        for evening in 0..<30 {
            let cell = LocalHour(weekday: evening % 7 + 1, hour: evening / 7 + 12)
            let time = 1_790_000_000 + Double(evening) * 86_400
            pieces.append(CrowdPiece(venue: 1, cell: cell, device: 1, model: "A", time: time, levelDBFS: -30))
            pieces.append(CrowdPiece(venue: 1, cell: cell, device: 2, model: "A", time: time, levelDBFS: -30.5))
            for fake in 0..<12 {
                pieces.append(
                    CrowdPiece(
                        venue: 1, cell: cell, device: Int64(100 + evening * 12 + fake), model: "A", time: time + 60,
                        levelDBFS: -42 + Double(fake) * 0.1))
            }
        }
        let result = CrowdFitOverTime().fit(pieces, trust: [1: 1, 2: 1])
        let standings = Dictionary(uniqueKeysWithValues: result.devices.map { ($0.device, $0.standing) })
        // Each phone's reference is the other phone (trust 1 ≥ half of 1), not the fakes' median.
        for phone: Int64 in [1, 2] {
            let standing = try #require(standings[phone])
            #expect(standing.trust == 1)
            #expect(standing.recentDisagreements == 0)
        }
        // Each fake's reference is the phones: 12 dB off, it disagrees and earns nothing.
        let fakes = standings.filter { $0.key >= 100 }.map(\.value)
        #expect(fakes.count == 360)
        #expect(fakes.allSatisfy { $0.trust == DeviceTrust.floor })
    }

    @Test func aNewCityBootstrapsItsTrust() throws {
        // No device trusted yet: five phones that meet on 6 evenings and agree. Each one's
        // reference is the four others, 0.1 each: ρ = 0.4 an evening, 6 evenings: Σρ = 2.4,
        // growth 2.4/4 → 0.1 + 0.9 · 0.6 = 0.64 in the first round; in the second the others
        // are at 0.64 (ρ = 1): Σρ = 6, full trust, where it settles.
        var pieces: [CrowdPiece] = []
        for evening in 0..<6 {
            let cell = LocalHour(weekday: evening % 7 + 1, hour: 20)
            for device in 1...5 {
                pieces.append(
                    CrowdPiece(
                        venue: 1, cell: cell, device: Int64(device), model: "A",
                        time: 1_790_000_000 + Double(evening) * 86_400, levelDBFS: -30 + Double(device) * 0.3))
            }
        }
        var oneRound = CrowdFitOverTime()
        oneRound.trustRounds = 1
        for device in oneRound.fit(pieces).devices { #expect(abs(device.standing.trust - 0.64) < 1e-9) }
        let result = CrowdFitOverTime().fit(pieces)
        for device in result.devices { #expect(device.standing.trust == 1) }
        // Settled: fitted again with the trust it gave, nothing moves.
        let again = CrowdFitOverTime().fit(
            pieces, trust: Dictionary(uniqueKeysWithValues: result.devices.map { ($0.device, $0.standing.trust) }))
        #expect(again.devices.map(\.standing) == result.devices.map(\.standing))
        #expect(result.devices.count == 5)
    }
}

/// An open campaign's check-ins are held out of the cells until an admin dismisses it.
@Suite("Venue judge: campaigns held out")
struct CampaignQuarantineTests {
    private let mondayNine = LocalHour(weekday: 1, hour: 21)

    private func venue() throws -> [VenueCheckin] {
        let spread: [Double] = [0, 2, -2, 1, -1, 3, -3, 0.5, -0.5, 2.5, -2.5, 1.5, -1.5, 0]
        var checkins = try spread.enumerated().map { index, delta in
            var checkin = try VenueCheckinFactory.checkin("h\(index)", device: "phone\(index)", levelDBFS: -40 + delta)
            checkin.device = DeviceStanding(trust: 1, established: true, checksInElsewhere: true)
            return checkin
        }
        for index in 0..<6 {
            var checkin = try VenueCheckinFactory.checkin("f\(index)", device: "fake\(index)", levelDBFS: -52)
            checkin.device = DeviceStanding(trust: DeviceTrust.floor, established: false, checksInElsewhere: false)
            checkins.append(checkin)
        }
        return checkins
    }

    @Test func whileOpenItsCheckinsCountInNoCellAndOnceDismissedTheyDo() throws {
        let checkins = try venue()
        let honest = try #require(VenueJudge().judge(Array(checkins.prefix(14))).cells[mondayNine])
        let open = VenueJudge().judge(checkins)
        let held = try #require(open.cells[mondayNine])
        #expect(open.campaign != nil)
        #expect(held.levelDB == honest.levelDB, "held out: the cell of the honest phones alone")
        #expect(held.includedCheckinCount == 14)
        let dismissed = VenueJudge().judge(checkins, ignoringCampaignDevices: Set((0..<6).map { "fake\($0)" }))
        let counted = try #require(dismissed.cells[mondayNine])
        #expect(dismissed.campaign == nil)
        #expect(counted.includedCheckinCount == 20)
        #expect(counted.levelDB < honest.levelDB, "they count, at their trust")
    }

    @Test func fakesAloneInACellAreMeasuredAgainstTheEstablishedPhonesProfile() throws {
        // Established phones on Monday–Wednesday 21:00–23:00 at −40 dBFS (±1), four a cell, except
        // Monday 23:00, which only five fresh ids fill, 12 dB quieter: the outlier test empties
        // the cell against the profile, and the campaign is found against the established
        // phones' profile (−40 there), not against a cell it does not have.
        var checkins: [VenueCheckin] = []
        for day in 0..<3 {
            for hour in 0..<3 where !(day == 0 && hour == 2) {
                for phone in 0..<4 {
                    var checkin = try VenueCheckinFactory.checkin(
                        "h\(day)\(hour)\(phone)", device: "phone\(phone)", levelDBFS: -40 + Double(phone % 3) - 1,
                        start: VenueCheckinFactory.mondayNine.addingTimeInterval(Double(day * 86_400 + hour * 3_600)))
                    checkin.device = DeviceStanding(trust: 1, established: true, checksInElsewhere: true)
                    checkins.append(checkin)
                }
            }
        }
        for fake in 0..<5 {
            var checkin = try VenueCheckinFactory.checkin(
                "f\(fake)", device: "fake\(fake)", levelDBFS: -52 + Double(fake % 2),
                start: VenueCheckinFactory.mondayNine.addingTimeInterval(2 * 3_600))
            checkin.device = DeviceStanding(trust: DeviceTrust.floor, established: false, checksInElsewhere: false)
            checkins.append(checkin)
        }
        let judged = VenueJudge().judge(checkins)
        let campaign = try #require(judged.campaign)
        #expect(campaign.devices.count == 5)
        #expect(campaign.direction == .quieter)
        #expect(judged.cells[LocalHour(weekday: 1, hour: 23)] == nil, "no check-in left in the cell")
    }
}
