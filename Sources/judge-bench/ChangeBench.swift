import Foundation
import LoudnessCore

/// `judge-bench changes [VENUES] [SEED] [SHIFT_DB] [FROM_HOUR]`: the venue change detector's
/// operating characteristics on synthetic pubs (docs/ARCHITECTURE.md, "Venues that change"),
/// judged online as the worker does — after every check-in, with the changes earlier judgements
/// stored. Each pub is open 11:00–24:00 for 13 days, 2 check-ins an open hour on average; a
/// check-in reads the hour's true level + the evening's crowd N(0, 2 dB) (shared by the hour's
/// check-ins) + its place N(0, 1.5 dB) + its phone's residual bias N(0, 1 dB), and one in 20 is
/// junk 8–15 dB off. Half the pubs are stable; the other half change by SHIFT_DB (default 6)
/// five days before the end, at hours ≥ FROM_HOUR (default 0: all). Prints the share of stable
/// pubs that raised a change, and for the changed ones how many check-ins since the change it
/// took (median, 90th percentile), the estimated shift and the hours it moved.
enum ChangeBench {
    struct Checkin {
        var time: Double
        var hour: Int
        var weekday: Int
        var device: String
        var level: Double
        var after: Bool
    }

    static func run(_ arguments: [String]) {
        let venues = arguments.first.flatMap(Int.init) ?? 100
        let seed = arguments.dropFirst().first.flatMap(UInt64.init) ?? 1
        let shift = arguments.dropFirst(2).first.flatMap(Double.init) ?? 6
        let fromHour = arguments.dropFirst(3).first.flatMap(Int.init) ?? 0
        var random = SplitMix64(seed: seed)
        var falseAlarms = 0
        var stable = 0
        var delays: [Int] = []
        var early = 0
        var missed = 0
        var shifts: [Double] = []
        var wrongHours = 0
        let environment = ProcessInfo.processInfo.environment
        let detector = Self.detector(environment)
        for index in 0..<venues {
            let changes = index % 2 == 1
            let checkins = pub(&random, shift: changes ? shift : 0, fromHour: fromHour)
            let outcome = online(checkins, detector: detector)
            if !changes {
                stable += 1
                if outcome.raisedAt != nil { falseAlarms += 1 }
                continue
            }
            guard let raisedAt = outcome.raisedAt, let change = outcome.final else {
                missed += 1
                if environment["CHANGE_SHOWMISSED"] != nil {
                    print(
                        "missed: n \(checkins.count) first after \(checkins.firstIndex(where: \.after) ?? -1) raisedAt \(outcome.raisedAt as Any) changes \(outcome.all.map { "\($0.status) \(Int($0.changedAt / 3600)) \(String(format: "%.1f", $0.shiftDB)) since \($0.checkinsSince)" })"
                    )
                }
                continue
            }
            let firstAfter = checkins.firstIndex(where: \.after) ?? checkins.count
            if raisedAt < firstAfter {
                early += 1
                continue
            }
            delays.append(raisedAt - firstAfter + 1)
            shifts.append(change.shiftDB)
            let moved = Set(change.changedHours)
            let expected = Set((11..<24).filter { $0 >= fromHour })
            wrongHours += moved.symmetricDifference(expected).count
        }
        let sorted = delays.sorted()
        func percentile(_ p: Double) -> Int {
            sorted.isEmpty ? -1 : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        print(
            "stable pubs: \(stable), false changes: \(falseAlarms) "
                + String(format: "(%.1f %%)", 100 * Double(falseAlarms) / Double(max(1, stable))))
        print(
            "changed pubs (\(shift) dB from \(fromHour):00): \(venues - stable), detected \(delays.count), "
                + "early \(early), missed \(missed); check-ins since the change to detect it: median \(percentile(0.5)), "
                + "90th percentile \(percentile(0.9)); shift estimated \(String(format: "%.2f", RobustStatistics.median(shifts) ?? .nan)) dB "
                + "(median); hours moved wrongly \(wrongHours) (over all detected pubs)")
    }

    /// The detector with the defaults but what `CHANGE_THRESHOLD`, `CHANGE_WINDOW`, `CHANGE_AFTER`,
    /// `CHANGE_MINIMUM` and `CHANGE_SCREEN` set.
    static func detector(_ environment: [String: String]) -> VenueChangeDetector {
        var detector = VenueChangeDetector()
        if let value = environment["CHANGE_THRESHOLD"].flatMap(Double.init) { detector.threshold = value }
        if let value = environment["CHANGE_WINDOW"].flatMap(Int.init) { detector.window = value }
        if let value = environment["CHANGE_AFTER"].flatMap(Int.init) { detector.minimumAfter = value }
        if let value = environment["CHANGE_MINIMUM"].flatMap(Int.init) { detector.minimumCheckins = value }
        if let value = environment["CHANGE_SCREEN"].flatMap(Double.init) { detector.screeningThreshold = value }
        return detector
    }

    /// One pub's check-ins in time order.
    static func pub(_ random: inout SplitMix64, shift: Double, fromHour: Int) -> [Checkin] {
        let base = 67 + random.unit() * 5
        var biases: [Double] = (0..<120).map { _ in random.gaussian() }
        biases.append(0)
        var checkins: [Checkin] = []
        let days = 13
        for day in 0..<days {
            let weekday = day % 7 + 1
            for hour in 11..<24 {
                let crowd = 2 * random.gaussian()
                var visits = 0
                var product = random.unit()
                while product > exp(-2.0) {
                    product *= random.unit()
                    visits += 1
                }
                for _ in 0..<visits {
                    let device = random.int(in: 0..<120)
                    let after = day >= days - 5
                    let weekend = weekday == 5 || weekday == 6
                    var level = base + 8 / (1 + exp(-(Double(hour) - 19) / 1.5)) + (weekend && hour >= 20 ? 3 : 0)
                    if ProcessInfo.processInfo.environment["CHANGE_FLAT"] == "1" { level = base }
                    level += crowd + 1.5 * random.gaussian() + biases[device]
                    if after, hour >= fromHour { level += shift }
                    if random.chance(0.05) { level += (random.chance(0.5) ? 1 : -1) * (8 + 7 * random.unit()) }
                    checkins.append(
                        Checkin(
                            time: Double(day * 86_400 + hour * 3_600) + random.unit() * 3_000, hour: hour,
                            weekday: weekday, device: "d\(device)", level: level - 110, after: after && hour >= fromHour
                        ))
                }
            }
        }
        return checkins.sorted { $0.time < $1.time }
    }

    /// Judges every prefix as the worker would (the stored changes carried along); the index of
    /// the check-in whose judgement first raised a change in force, and the last judgement's.
    static func online(_ checkins: [Checkin], detector: VenueChangeDetector) -> (
        raisedAt: Int?, final: VenueChange?, all: [VenueChange]
    ) {
        var known: [KnownVenueChange] = []
        var raisedAt: Int?
        var pieces: [VenueChangeDetector.Piece] = []
        var last: VenueChange?
        var all: [VenueChange] = []
        for (index, checkin) in checkins.enumerated() {
            pieces.append(
                VenueChangeDetector.Piece(
                    checkin: index, time: checkin.time, cell: LocalHour(weekday: checkin.weekday, hour: checkin.hour),
                    levelDB: checkin.level, device: checkin.device, weight: 1))
            let regime = detector.assess(pieces, known: known)
            known = regime.changes.map(KnownVenueChange.init)
            if raisedAt == nil, regime.inForce != nil { raisedAt = index }
            last = regime.inForce
            all = regime.changes
        }
        return (raisedAt, last, all)
    }
}
