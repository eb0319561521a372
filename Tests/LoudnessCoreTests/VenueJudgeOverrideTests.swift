import Foundation
import LoudnessCore
import Testing

@Suite("Venue judge: an admin's forced inclusion")
struct VenueJudgeOverrideTests {
    private let judge = VenueJudge()
    private let mondayNine = LocalHour(weekday: 1, hour: 21)

    private func honest() throws -> [VenueCheckin] {
        try [-40.0, -41, -39].enumerated().map { index, level in
            try VenueCheckinFactory.checkin("c\(index)", device: "d\(index)", levelDBFS: level)
        }
    }

    private func forced(_ checkin: VenueCheckin) throws -> VenueCheckin {
        try VenueCheckin(
            id: checkin.id, deviceID: checkin.deviceID, samples: checkin.samples, localHours: checkin.localHours,
            modelOffsetDB: checkin.modelOffsetDB, exclusionReasons: checkin.exclusionReasons, forcedInclusion: true)
    }

    @Test func aForcedOutlierCountsAndMovesTheCell() throws {
        let loud = try VenueCheckinFactory.checkin("loud", device: "dx", levelDBFS: -20)

        let judged = judge.judge(try honest() + [loud])
        let overruled = judge.judge(try honest() + [try forced(loud)])

        #expect(judged.checkins.last?.status == .outlier)
        let checkin = try #require(overruled.checkins.last)
        #expect(checkin.status == .included)
        #expect(checkin.reasons == [JudgementReason.adminIncluded])
        #expect(checkin.hours.map(\.counted) == [true])
        #expect(checkin.hours.map(\.isOutlier) == [false])
        #expect((checkin.hours.first?.modifiedZ ?? 0) > 3.5, "its z is still reported")
        let cell = try #require(overruled.cells[mondayNine])
        #expect(cell.includedCheckinCount == 4)
        #expect(cell.deviceCount == 4)
        // Huber (k = 1.345) pulls towards −20 but far less than a mean would (−35.0).
        #expect(cell.levelDB > (judged.cells[mondayNine]?.levelDB ?? 0) + 0.5)
        #expect(cell.levelDB < -35.5)
    }

    @Test func aForcedCheckinIgnoresItsExclusionReasons() throws {
        let far = try VenueCheckinFactory.checkin(
            "far", device: "dx", levelDBFS: -40, exclusionReasons: [JudgementReason.tooFarFromVenue])

        let judged = judge.judge(try honest() + [try forced(far)])

        #expect(judged.checkins.last?.status == .included)
        #expect(judged.checkins.last?.reasons == [JudgementReason.adminIncluded])
        #expect(judged.cells[mondayNine]?.includedCheckinCount == 4)
    }

    @Test func aForcedCheckinWithTooFewSecondsInAnyHourStaysOut() throws {
        let short = try VenueCheckinFactory.checkin("short", device: "dx", levelDBFS: -40, seconds: 8)

        let judged = judge.judge(try honest() + [try forced(short)])

        #expect(judged.checkins.last?.status == .excluded)
        #expect(
            judged.checkins.last?.reasons == [JudgementReason.adminIncluded, JudgementReason.tooFewSecondsPerHour])
        #expect(judged.cells[mondayNine]?.includedCheckinCount == 3)
    }
}
