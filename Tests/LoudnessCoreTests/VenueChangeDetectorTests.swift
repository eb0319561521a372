import Foundation
import Testing

@testable import LoudnessCore

@Suite("Venue change detection")
struct VenueChangeDetectorTests {
    /// A pub open 18:00–23:59 for `days` days, two check-ins an hour from different phones, each
    /// reading the venue's level `level(day, hour)` plus a fixed pattern of −3, +3, −1.5, +1.5 dB
    /// (a known spread: SD √((9 + 9 + 2.25 + 2.25)/4) = 2.37 dB, no randomness), at 10 and 40
    /// minutes past.
    static func pub(days: Int = 14, level: (Int, Int) -> Double) -> [VenueChangeDetector.Piece] {
        let pattern = [-3, 3, -1.5, 1.5]
        var pieces: [VenueChangeDetector.Piece] = []
        for day in 0..<days {
            for hour in 18..<24 {
                for visit in 0..<2 {
                    let index = pieces.count
                    pieces.append(
                        VenueChangeDetector.Piece(
                            checkin: index, time: Double(day * 86_400 + hour * 3_600 + 600 + visit * 1_800),
                            cell: LocalHour(weekday: day % 7 + 1, hour: hour),
                            levelDB: level(day, hour) + pattern[index % 4], device: "d\(index % 17)", weight: 1))
                }
            }
        }
        return pieces
    }

    /// The regime after judging every prefix in turn, as the worker does, carrying the stored
    /// changes; and the count of check-ins at the first judgement that raised one in force.
    static func online(_ pieces: [VenueChangeDetector.Piece], detector: VenueChangeDetector = .init())
        -> (regime: VenueChangeDetector.Regime, raisedAfter: Int?)
    {
        var known: [KnownVenueChange] = []
        var raisedAfter: Int?
        var regime = detector.assess([])
        for count in 1...pieces.count {
            regime = detector.assess(Array(pieces.prefix(count)), known: known)
            known = regime.changes.map(KnownVenueChange.init)
            if raisedAfter == nil, regime.inForce != nil { raisedAfter = count }
        }
        return (regime, raisedAfter)
    }

    @Test func aSteadyVenueRaisesNoChange() {
        let (regime, raised) = Self.online(Self.pub { _, hour in -40 + Double(hour - 18) })
        #expect(raised == nil)
        #expect(regime.changes.isEmpty)
        #expect(regime.weightFactors.allSatisfy { $0 == 1 })
    }

    @Test func aSixDecibelStepIsFoundDatedAndMeasured() throws {
        // From day 8 every hour reads 6 dB more: the first check-in after is number 8 · 12 + 1 = 97.
        let pieces = Self.pub { day, hour in -40 + Double(hour - 18) + (day >= 8 ? 6 : 0) }
        let (regime, raised) = Self.online(pieces)
        let change = try #require(regime.inForce)
        #expect(change.changedAt == pieces[96].time)
        // By hand: the residuals' robust SD is 1.4826 · 2.25 = 3.34 dB; the two check-ins of an
        // hour differ by 6 or 3 dB (median 4.5: a within-hour SD of 4.5 / (0.6745·√2) = 4.7, held
        // to 3.34). An hour's mean then has the variance 3.34²/2 (shared, its floor) + 3.34²/2 =
        // 11.2 dB², and each hour since adds 6²/11.2 = 3.23 to T²: T reaches 9 after
        // ⌈81/3.23⌉ = 26 hours, 52 check-ins. Raised then, never before the change.
        let after = try #require(raised) - 96
        #expect(after >= 50 && after <= 54, "raised after \(after) check-ins since the change")
        // The pattern averages 0 over every 4 check-ins: the shift is 6 dB at every open hour.
        for hour in 18..<24 { #expect(abs(change.shiftsDB[hour] - 6) < 0.8, "hour \(hour): \(change.shiftsDB[hour])") }
        #expect(change.shiftsDB[12] == 0)
        // Check-ins before it are brought forward by the shift and weigh half.
        #expect(abs(regime.levelsDB[0] - pieces[0].levelDB - change.shiftsDB[18]) < 1e-9)
        #expect(regime.weightFactors[0] == 0.5)
        #expect(regime.weightFactors[96] == 1)
        #expect(change.checkinsSince == pieces.count - 96)
    }

    @Test func aStepInSomeHoursMovesOnlyThose() throws {
        // The detector is told of the change (as the judge is, once stored): a DJ from 22:00 on
        // day 8. Hours 22 and 23 move by 6 dB; 18–20 stay (their check-ins since read as before);
        // 21 lies between and goes with the nearer.
        let pieces = Self.pub { day, hour in -40 + (day >= 8 && hour >= 22 ? 6 : 0) }
        let known = KnownVenueChange(changedAt: pieces[96].time, detectedAt: pieces[120].time, shiftDB: 6)
        let regime = VenueChangeDetector().assess(pieces, known: [known])
        let change = try #require(regime.inForce)
        #expect(abs(change.shiftsDB[22] - 6) < 1 && abs(change.shiftsDB[23] - 6) < 1)
        for hour in 18...20 { #expect(change.shiftsDB[hour] == 0, "hour \(hour): \(change.shiftsDB[hour])") }
        #expect(regime.weightFactors[0] == 1, "an 18:00 check-in before the change is not brought forward")
    }

    @Test func aDismissedChangeIsNotRaisedAgain() throws {
        // A festival: 6 dB louder from day 8 to day 12 (60 check-ins). Raised during it; the
        // admin dismisses it; the week since reads as before, so nothing is in force and nothing
        // is brought forward.
        let pieces = Self.pub(days: 20) { day, hour in -40 + Double(hour - 18) + ((8...12).contains(day) ? 6 : 0) }
        let festival = try #require(Self.online(Array(pieces.prefix(156))).regime.inForce)
        var dismissed = KnownVenueChange(festival)
        dismissed.status = .dismissed
        var known = [dismissed]
        var regime = VenueChangeDetector().assess([])
        for count in 157...pieces.count {
            regime = VenueChangeDetector().assess(Array(pieces.prefix(count)), known: known)
            known = regime.changes.map(KnownVenueChange.init)
        }
        #expect(regime.inForce == nil, "\(regime.changes)")
        #expect(regime.changes.first?.status == .dismissed)
    }

    @Test func aKnownChangeTheDataDoNotShowIsWithdrawn() throws {
        // Stored (say from a burst of junk) but the 48 check-ins since read as before.
        let pieces = Self.pub { _, hour in -40 + Double(hour - 18) }
        let known = KnownVenueChange(changedAt: pieces[120].time, detectedAt: pieces[130].time, shiftDB: 5)
        let regime = VenueChangeDetector().assess(pieces, known: [known])
        #expect(regime.inForce == nil)
        #expect(regime.changes.map(\.status) == [.withdrawn])
    }

    @Test func aBurstOfJunkCorrectsItself() {
        // Eight check-ins in a row 15 dB off (a party of broken phones, clipped at 8 dB), then
        // normal again: whatever it raised is withdrawn once 20 check-ins since read as before,
        // and nothing stays brought forward.
        let (regime, _) = Self.online(Self.pub { day, hour in -40 + (day == 9 && hour < 22 ? 15 : 0) })
        #expect(regime.inForce == nil, "\(regime.changes)")
        #expect(regime.weightFactors.allSatisfy { $0 == 1 })
    }
}
