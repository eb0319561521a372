import Foundation
import Testing

@testable import LoudnessCore

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
        // Five check-ins make 10 pairs, enough for a pooled scale; the loud one's pairs move the
        // scale it was judged by, but not the one the cell is estimated with.
        #expect(with.cells[mondayNine]?.rangeDB == without.cells[mondayNine]?.rangeDB)
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
        #expect(judged.checkins[0].reasons == [JudgementReason(.tooFewValidSeconds)])
        #expect(judged.checkins[0].levelDBFS == nil)
        #expect(judged.checkins[1].reasons == [JudgementReason.tooFarFromVenue, JudgementReason(.stuckMeter)])
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

    @Test func aSmallCellIsJudgedByTheVenuesOtherHours() throws {
        // Monday–Wednesday × 20:00–22:00 with three devices per cell at −40, −41, −39 dBFS (+2 dB a
        // day), except Monday 21:00: one honest check-in and one from a pocket, 20 dB under it.
        // Alone, two check-ins reject nothing and the cell is their mean. In the venue: pooled σ =
        // 2.21914 × 1 (distances 1, 1, 2 in every cell), the profile predicts −40.03 with weight 2,
        // so the centre is the honest check-in and the pocket is (−60 + 40) / 2.219 = −9.01 off.
        var venue: [VenueCheckin] = []
        for day in 0..<3 {
            for hour in -1...1 where day != 0 || hour != 0 {
                for (index, level) in [-40.0, -41, -39].enumerated() {
                    venue.append(
                        try VenueCheckinFactory.checkin(
                            "c\(day)\(hour)\(index)", device: "d\(index)", levelDBFS: level + 2 * Double(day),
                            start: VenueCheckinFactory.mondayNine.addingTimeInterval(
                                Double(day * 86_400 + hour * 3_600))
                        ))
                }
            }
        }
        let honest = try VenueCheckinFactory.checkin("honest", device: "d7", levelDBFS: -40)
        let pocket = try VenueCheckinFactory.checkin("pocket", device: "d8", levelDBFS: -60)

        let alone = judge.judge([honest, pocket])
        let judged = judge.judge(venue + [honest, pocket])

        #expect(alone.checkins.map(\.status) == [.included, .included])
        #expect(abs((alone.cells[mondayNine]?.levelDB ?? 0) - -50.0331) < 0.001)
        #expect(judged.checkins.suffix(2).map(\.status) == [.included, .outlier])
        #expect(judged.checkins.last?.reasons == [JudgementReason.cellOutlier])
        let z = try #require(judged.checkins.last?.hours.first?.modifiedZ)
        #expect(abs(z - -20 / PooledScale.qnFactor) < 0.001)
        #expect(abs((judged.cells[mondayNine]?.levelDB ?? 0) - -40.0331) < 0.001)
        #expect(judged.checkins.dropLast().allSatisfy { $0.status == .included })
    }

    @Test func aSecondLookAtTheScaleOfWhatWasKeptFindsMoreJunk() throws {
        // Monday 13:00…20:00, one cell an hour (no weekday + hour profile is possible): three cells
        // at [−40, −39], two at [−40, −36], two at [−40, −36, −10] and one at [−40, −39, −28].
        // First look, 14 distances 1 1 1 1 4 4 4 4 11 12 26 26 30 30: first quartile 1.75, σ =
        // 2.21914 × 1.75 = 3.8835; the −10s are (−10 + 36)/3.8835 = 6.70 off (outliers) but −28 only
        // 11/3.8835 = 2.83. Second look without the −10s, 10 distances 1 1 1 1 4 4 4 4 11 12:
        // quartile 1, σ = 2.21914, and −28 is 11/2.21914 = 4.96 off.
        let cells: [[Double]] = [
            [-40, -39], [-40, -39], [-40, -39], [-40, -36], [-40, -36], [-40, -36, -10], [-40, -36, -10],
            [-40, -39, -28],
        ]
        var checkins: [VenueCheckin] = []
        for (hour, levels) in cells.enumerated() {
            for (index, level) in levels.enumerated() {
                checkins.append(
                    try VenueCheckinFactory.checkin(
                        "h\(hour)-\(index)", device: "d\(index)", levelDBFS: level,
                        start: VenueCheckinFactory.mondayNine.addingTimeInterval(Double(-3_600 * (hour + 1)))))
            }
        }

        let judged = judge.judge(checkins)

        let rejected = judged.checkins.filter { $0.status == .outlier }.map(\.checkinID)
        #expect(rejected == ["h5-2", "h6-2", "h7-2"])
        let z = try #require(judged.checkins.last?.hours.first?.modifiedZ)
        #expect(abs(z - 11 / PooledScale.qnFactor) < 0.001)
    }
}

@Suite("Leave-one-device-out medians")
struct LeaveOneOutMediansTests {
    @Test("the median of the other devices' values, for each device")
    func medians() {
        // Device values (median of each device's pieces): a 70, b 72 (71 and 73), c 75, d 90.
        let cells = [
            CellCheckin(checkinID: "1", deviceID: "a", levelDB: 70),
            CellCheckin(checkinID: "2", deviceID: "b", levelDB: 71),
            CellCheckin(checkinID: "3", deviceID: "b", levelDB: 73),
            CellCheckin(checkinID: "4", deviceID: "c", levelDB: 75),
            CellCheckin(checkinID: "5", deviceID: "d", levelDB: 90),
        ]
        let medians = LeaveOneOutMedians(cells)
        // python3: statistics.median([72, 75, 90]) == 75; median([70, 75, 90]) == 75;
        // median([70, 72, 90]) == 72; median([70, 72, 75]) == 72; median([70, 72, 75, 90]) == 73.5
        #expect(medians.without(device: "a")?.median == 75)
        #expect(medians.without(device: "b")?.median == 75)
        #expect(medians.without(device: "c")?.median == 72)
        #expect(medians.without(device: "d")?.median == 72)
        #expect(medians.without(device: "d")?.devices == 3)
        #expect(medians.without(device: "stranger")?.median == 73.5)
        #expect(LeaveOneOutMedians([cells[0]]).without(device: "a") == nil)
    }
}
