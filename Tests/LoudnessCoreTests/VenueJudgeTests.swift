import Foundation
import LoudnessCore
import Testing

@Suite("Venue judge: check-ins to cells")
struct VenueJudgeTests {
    private let judge = VenueJudge()
    private let mondayNine = LocalHour(weekday: 1, hour: 21)

    private func clean(_ levels: [Double]) throws -> [VenueCheckin] {
        try levels.enumerated().map { index, level in
            try VenueCheckinFactory.checkin("c\(index)", device: "d\(index)", levelDBFS: level)
        }
    }

    @Test func cleanCheckinsAreIncludedInTheirCell() throws {
        let judged = judge.judge(try clean([-40, -41, -39]))

        #expect(judged.checkins.map(\.status) == [.included, .included, .included])
        #expect(judged.checkins.allSatisfy { $0.reasons.isEmpty && $0.validSeconds == 120 })
        let cell = try #require(judged.cells[mondayNine])
        #expect(cell.includedCheckinCount == 3)
        #expect(cell.deviceCount == 3)
        // python3: 10*log10(mean(10**(w/10))) of the 120-second wobble = −0.0331 dB, so each Leq is
        // its level − 0.0331; Huber of a set this tight is its mean.
        #expect(abs(cell.levelDB - -40.0331) < 0.001)
    }

    @Test func anOutlierIsFlaggedAndLeavesTheCellUnchanged() throws {
        let honest = try clean([-40, -41, -39, -40.5, -39.5])
        let loud = try VenueCheckinFactory.checkin("loud", device: "dx", levelDBFS: -20)

        let without = judge.judge(honest)
        let with = judge.judge(honest + [loud])

        let flagged = try #require(with.checkins.last)
        #expect(flagged.status == .outlier)
        #expect(flagged.reasons == [JudgementReason.cellOutlier])
        #expect(flagged.hours.map(\.isOutlier) == [true])
        #expect(flagged.hours.map(\.counted) == [false])
        #expect(with.cells[mondayNine] != nil)
        #expect(with.cells[mondayNine]?.levelDB == without.cells[mondayNine]?.levelDB)
        #expect(with.cells[mondayNine]?.includedCheckinCount == 5)
    }

    @Test func anOutlierInOneHourLeavesEveryHour() throws {
        // Five honest check-ins in each of 21:00 and 22:00; one check-in from 21:58 to 22:02 is
        // 20 dB loud at 21:00 (120 s there) and 22:00 (120 s), flagged in both or either.
        let nine = try clean([-40, -41, -39, -40.5, -39.5])
        let ten = try (0..<5).map { index in
            try VenueCheckinFactory.checkin(
                "t\(index)", device: "e\(index)", levelDBFS: -40 + Double(index) * 0.3,
                start: VenueCheckinFactory.mondayNine.addingTimeInterval(3_600 + 600))
        }
        let crossing = try VenueCheckinFactory.checkin(
            "x", device: "dx", levelDBFS: -20, seconds: 240,
            start: VenueCheckinFactory.mondayNine.addingTimeInterval(3_600 - 120))

        let judged = judge.judge(nine + ten + [crossing])
        let baseline = judge.judge(nine + ten)

        #expect(judged.checkins.last?.status == .outlier)
        #expect(judged.checkins.last?.hours.count == 2)
        #expect(judged.cells.mapValues(\.levelDB) == baseline.cells.mapValues(\.levelDB))
        #expect(judged.cells.mapValues(\.includedCheckinCount) == baseline.cells.mapValues(\.includedCheckinCount))
    }

    @Test func excludedCheckinsStayOutButKeepTheirStatistics() throws {
        let honest = try clean([-40, -41, -39])
        let excluded = try VenueCheckinFactory.checkin(
            "x", device: "dx", levelDBFS: -30, exclusionReasons: [JudgementReason.deviceExcluded])

        let judged = judge.judge(honest + [excluded])

        let verdict = try #require(judged.checkins.last)
        #expect(verdict.status == .excluded)
        #expect(verdict.reasons == [JudgementReason.deviceExcluded])
        #expect(verdict.validSeconds == 120)
        #expect(abs((verdict.levelDBFS ?? 0) - -30.0331) < 0.001)
        #expect(judged.cells[mondayNine]?.includedCheckinCount == 3)
        // The excluded device still gets a residual, so admins see how far off it is.
        let residual = try #require(verdict.hours.first?.residualDB)
        #expect(abs(residual - 10) < 0.001)
        #expect(verdict.hours.first?.otherDeviceCount == 3)
    }

    @Test func cleaningVerdictsBecomeReasons() throws {
        let silent = try VenueCheckin(
            id: "s", deviceID: "d9",
            samples: SampleFactory.samples(Array(repeating: -160, count: 30)),
            localHours: Array(repeating: mondayNine, count: 30))
        let farAndStuck = try VenueCheckin(
            id: "f", deviceID: "d8", samples: SampleFactory.samples(Array(repeating: -30, count: 30)),
            localHours: Array(repeating: mondayNine, count: 30), exclusionReasons: [JudgementReason.tooFarFromVenue])

        let judged = judge.judge([silent, farAndStuck])

        #expect(judged.checkins[0].status == .excluded)
        #expect(judged.checkins[0].reasons == [CheckinExclusion.tooFewValidSeconds.rawValue])
        #expect(judged.checkins[0].levelDBFS == nil)
        #expect(judged.checkins[1].reasons == [JudgementReason.tooFarFromVenue, CheckinExclusion.stuckMeter.rawValue])
        #expect(judged.cells.isEmpty)
    }

    @Test func aCheckinWithNoFullHourPieceCountsNowhere() throws {
        // 18 valid seconds, 9 either side of 22:00: accepted by cleaning, but each piece < 10 s.
        let split = try VenueCheckinFactory.checkin(
            "split", device: "d0", levelDBFS: -40, seconds: 18,
            start: VenueCheckinFactory.mondayNine.addingTimeInterval(3_600 - 9))

        let judged = judge.judge([split])

        #expect(judged.checkins[0].status == .excluded)
        #expect(judged.checkins[0].reasons == [JudgementReason.tooFewSecondsPerHour])
        #expect(judged.checkins[0].hours.map(\.statistics.validSeconds) == [9, 9])
        #expect(judged.cells.isEmpty)
    }

    @Test func modelOffsetsShiftTheCell() throws {
        let plain = try VenueCheckinFactory.checkin("a", device: "d0", levelDBFS: -40)
        let shifted = try VenueCheckinFactory.checkin("b", device: "d1", levelDBFS: -43, modelOffsetDB: 3)

        let judged = judge.judge([plain, shifted])

        let cell = try #require(judged.cells[mondayNine])
        #expect(abs(cell.levelDB - -40.0331) < 0.001)
        #expect(cell.scaleDB == 1)
    }

    @Test func acrossMidnightSundayToMondayCountsInBothDays() throws {
        // Sunday 2026-11-22 23:58 UTC + 240 s: 120 s on Sunday 23:00, 120 s on Monday 0:00.
        let start = Date(timeIntervalSince1970: 1_795_391_880)
        let checkin = try VenueCheckinFactory.checkin("m", device: "d0", levelDBFS: -40, seconds: 240, start: start)

        let judged = judge.judge([checkin])

        #expect(Set(judged.cells.keys) == [LocalHour(weekday: 7, hour: 23), LocalHour(weekday: 1, hour: 0)])
        #expect(judged.checkins[0].hours.map(\.statistics.validSeconds) == [120, 120])
        #expect(judged.cells.values.allSatisfy { $0.includedCheckinCount == 1 })
    }

    @Test func perSampleOffsetsDecideTheHourWithoutAZone() {
        // 21:59:59 and 22:00:00 UTC, the second sample sent at +01:00: Monday 21:00 and 23:00.
        let start = VenueCheckinFactory.mondayNine.addingTimeInterval(3_599)

        let hours = VenueClock.localHours(
            start: start, offsetsSeconds: [0, 1], utcOffsetsMinutes: [0, 60], venueClock: nil)
        let shared = VenueClock.localHours(
            start: start, offsetsSeconds: [0, 1], utcOffsetsMinutes: [60], venueClock: nil)

        #expect(hours == [LocalHour(weekday: 1, hour: 21), LocalHour(weekday: 1, hour: 23)])
        #expect(shared == [LocalHour(weekday: 1, hour: 22), LocalHour(weekday: 1, hour: 23)])
    }
}
