import Foundation
import Testing

@testable import LoudnessCore

/// Coordinated campaigns at one venue (docs/ARCHITECTURE.md, "Campaigns").
@Suite("Campaign detection")
struct CampaignDetectorTests {
    static let cell = LocalHour(weekday: 5, hour: 21)
    static let day = 86_400.0

    static func piece(_ checkin: String, device: String, level: Double, day: Double = 0, standing: DeviceStanding)
        -> CampaignDetector.Piece
    {
        CampaignDetector.Piece(
            checkin: checkin, device: device, time: day * Self.day, cell: Self.cell, levelDB: level, standing: standing)
    }

    static let established = DeviceStanding(trust: 1, established: true, checksInElsewhere: true)
    static let fresh = DeviceStanding(trust: DeviceTrust.floor, established: false, checksInElsewhere: false)

    /// Ten established phones at the cell's level (−20 dB) on days 0…9, and `fakes` fresh ids two
    /// check-ins each at `fakeDB` from it on day 10.
    static func venue(fakes: Int, fakeDB: Double) -> [CampaignDetector.Piece] {
        let honest = (0..<10).map { index in
            piece(
                "h\(index)", device: "phone\(index)", level: -20 + Double(index % 3) - 1, day: Double(index),
                standing: established)
        }
        let faked = (0..<fakes).flatMap { index in
            (0..<2).map {
                piece("f\(index)-\($0)", device: "fake\(index)", level: -20 + fakeDB, day: 10, standing: fresh)
            }
        }
        return honest + faked
    }

    @Test func freshIdsOnlyHereAndFarFromTheLevelAreACampaign() throws {
        let campaign = try #require(
            CampaignDetector().campaign(Self.venue(fakes: 4, fakeDB: -12), cells: [Self.cell: -20]))
        #expect(campaign.direction == .quieter)
        #expect(campaign.devices == ["fake0", "fake1", "fake2", "fake3"])
        #expect(campaign.checkins.count == 8)
        #expect(campaign.deviationDB == -12)
    }

    @Test func loudFakesAreACampaignTheOtherWay() throws {
        let campaign = try #require(
            CampaignDetector().campaign(Self.venue(fakes: 3, fakeDB: 12), cells: [Self.cell: -20]))
        #expect(campaign.direction == .louder)
    }

    @Test func twoDevicesAreNoCampaignNorAreHonestNewcomers() {
        let detector = CampaignDetector()
        #expect(detector.campaign(Self.venue(fakes: 2, fakeDB: -12), cells: [Self.cell: -20]) == nil)
        // Fresh, only here, but near the level (5 dB < 6): newcomers, not suspects.
        #expect(detector.campaign(Self.venue(fakes: 6, fakeDB: -5), cells: [Self.cell: -20]) == nil)
        // Far off, but they check in elsewhere too: no campaign of this venue.
        let travellers = Self.venue(fakes: 4, fakeDB: -12).map { piece in
            var piece = piece
            piece.standing.checksInElsewhere = true
            return piece
        }
        #expect(detector.campaign(travellers, cells: [Self.cell: -20]) == nil)
    }

    @Test func anAdminsDismissalIsHonoured() {
        let ignoring: Set<String> = ["fake0", "fake1"]
        #expect(
            CampaignDetector().campaign(Self.venue(fakes: 4, fakeDB: -12), cells: [Self.cell: -20], ignoring: ignoring)
                == nil, "two devices left")
    }

    @Test func checkinsOutsideTheWindowAreNotCounted() {
        // Fakes of three weeks before the latest check-in: outside the 14 days.
        var pieces = Self.venue(fakes: 4, fakeDB: -12).map { piece in
            var piece = piece
            if piece.device.hasPrefix("fake") { piece.time = 0 }
            return piece
        }
        pieces.append(Self.piece("late", device: "phone0", level: -20, day: 21, standing: Self.established))
        #expect(CampaignDetector().campaign(pieces, cells: [Self.cell: -20]) == nil)
    }
}
