import Foundation
import HearClearEngine
import LoudnessCore

/// The trust scenarios (``SimulationScenarios``) applied to a drawn city. The city's own check-ins
/// keep every draw: a changed room or a drifted phone draws its session again from the generator
/// it was first drawn from, at the new level (the same fluctuation and junk). Fakes, slow burns
/// and newcomers are added from their own generators, each check-in copying the place and hour of
/// one of the city's (so they come when the venue is open, and never in a hidden cell).
extension SimulatedCity {
    static let day = 86_400.0

    /// Applies `scenarios` (filling in what it draws: targets, times, the stepping model) after
    /// the cells were hidden; returns lines to print. `now` is the city's.
    mutating func apply(
        _ scenarios: inout SimulationScenarios, seed: UInt64, days: Int, contamination: Double, now: Date
    ) -> [String] {
        var notes: [String] = []
        if scenarios.changesVenues { notes.append(changeVenues(&scenarios, seed: seed, now: now)) }
        // Every phone's start (ageing).
        let firstDay = now.addingTimeInterval(-Double(days + 1) * Self.day)
        if scenarios.ages {
            for index in devices.indices {
                var draw = SplitMix64(seed: seed ^ FNV1a.hash("\(devices[index].id)|start"))
                devices[index].startDate = Self.startDate(before: firstDay, draw: &draw)
            }
        }
        if scenarios.stepsModel { notes.append(contentsOf: stepModel(&scenarios, now: now)) }
        if scenarios.stepsDevices { notes.append(contentsOf: stepDevices(&scenarios, seed: seed, now: now)) }
        shiftOwnCheckins(scenarios)
        // Additions copy the city's own check-ins' places and hours, in time order.
        let base = checkins.sorted { ($0.start, $0.truth.id) < ($1.start, $1.truth.id) }
        if scenarios.fakes {
            notes.append(contentsOf: addFakes(&scenarios, base: base, seed: seed, now: now))
        }
        if scenarios.slowBurns {
            notes.append(contentsOf: addSlowBurns(&scenarios, base: base, seed: seed, now: now))
        }
        if scenarios.addsNewcomers {
            notes.append(
                contentsOf: addNewcomers(
                    &scenarios, base: base, seed: seed, contamination: contamination, firstDay: firstDay, now: now))
        }
        self.scenarios = scenarios
        return notes
    }

    /// Venues that change: each with a draw under the share changes `changeDaysAgo` days ago; the
    /// note naming them.
    private mutating func changeVenues(_ scenarios: inout SimulationScenarios, seed: UInt64, now: Date) -> String {
        let at = now.addingTimeInterval(-scenarios.changeDaysAgo * Self.day)
        scenarios.changeAt = at
        for venue in venues {
            var draw = SplitMix64(seed: seed ^ FNV1a.hash("\(venue.id)|change"))
            if draw.unit() < scenarios.changeShare {
                changes[venue.id] = SimulationTruth.VenueChange(
                    at: at, db: scenarios.changeDB, hours: scenarios.changeHours ?? Array(0..<24))
            }
        }
        return "venues that change: \(changes.keys.sorted().joined(separator: ", "))"
    }

    /// A model's step: the model asked for, else the one with the most check-ins, steps with its
    /// OS update `modelStepDaysAgo` days ago.
    private mutating func stepModel(_ scenarios: inout SimulationScenarios, now: Date) -> [String] {
        let counts = Dictionary(grouping: checkins, by: \.model).mapValues(\.count)
        let model =
            scenarios.modelStepModel
            ?? counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.first?.key
        scenarios.modelStepModel = model
        scenarios.modelStepAt = now.addingTimeInterval(-scenarios.modelStepDaysAgo * Self.day)
        guard let model else { return [] }
        scenarios.modelStepOSBefore = SimulatedOS.of(model: model)
        scenarios.modelStepOSAfter = SimulatedOS.of(model: model).updated
        return [
            "model \(model) steps: \(counts[model] ?? 0) of its check-ins in the city, "
                + "\(devices.count { $0.model == model }) phones"
        ]
    }

    /// Phones that step: `deviceSteps` drawn among those with ≥ 3 check-ins after the step (never an
    /// always-full-scale one); a note when fewer qualify.
    private mutating func stepDevices(_ scenarios: inout SimulationScenarios, seed: UInt64, now: Date) -> [String] {
        let at = now.addingTimeInterval(-scenarios.deviceStepDaysAgo * Self.day)
        scenarios.deviceStepAt = at
        let fullScale = Set(devices.filter(\.fullScale).map(\.id))
        let after = Dictionary(grouping: checkins.filter { $0.start >= at && !fullScale.contains($0.truth.device) }) {
            $0.truth.device
        }
        var candidates = after.filter { $0.value.count >= 3 }.keys.sorted()
        var random = SplitMix64(seed: seed ^ 0x4445_5653_5445_50)  // "DEVSTEP"
        Self.shuffle(&candidates, random: &random)
        let chosen = Set(candidates.prefix(scenarios.deviceSteps))
        for index in devices.indices where chosen.contains(devices[index].id) {
            devices[index].stepDB = scenarios.deviceStepDB
            devices[index].stepAt = at
        }
        scenarios.steppedDevices = chosen.sorted()
        guard chosen.count < scenarios.deviceSteps else { return [] }
        return [
            "only \(chosen.count) phone(s) have ≥ 3 check-ins after the step: \(chosen.count) step, "
                + "not \(scenarios.deviceSteps)"
        ]
    }

    /// The city's own check-ins: the room's change, the phone's drift, the system it reports.
    private mutating func shiftOwnCheckins(_ scenarios: SimulationScenarios) {
        let deviceIndex = Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1.id, $0) })
        for index in checkins.indices {
            let planned = checkins[index]
            let device = deviceIndex[planned.truth.device].map { devices[$0] } ?? planned.device
            var room = 0.0
            if let change = changes[planned.truth.venue] {
                checkins[index].truth.afterChange = planned.start >= change.at
                if change.applies(hour: planned.truth.hour, at: planned.start) { room = change.db }
            }
            let drift = Self.drift(of: device, at: planned.start, scenarios: scenarios)
            checkins[index].truth.phoneOffsetDB = device.biasDB + drift
            checkins[index].os = Self.os(of: device.model, at: planned.start, scenarios: scenarios)
            checkins[index].shift(by: room + drift)
        }
    }

    /// Sorts the check-ins by start (ties by id), as a city would deliver them.
    mutating func sortChronologically() {
        checkins.sort { ($0.start, $0.truth.id) < ($1.start, $1.truth.id) }
    }

    /// How many dB `device` reads at `time` above what it read when the city was drawn: its
    /// model's step, its own step, its ageing.
    static func drift(of device: SimulatedDevice, at time: Date, scenarios: SimulationScenarios) -> Double {
        var drift = 0.0
        if scenarios.stepsModel, device.model == scenarios.modelStepModel, let at = scenarios.modelStepAt, time >= at {
            drift += scenarios.modelStepDB
        }
        if let step = device.stepDB, let at = device.stepAt, time >= at { drift += step }
        if scenarios.ages, let start = device.startDate {
            drift += scenarios.ageingDBPerYear * time.timeIntervalSince(start) / (365.25 * day)
        }
        return drift
    }

    /// The system a phone of `model` reports at `time`.
    static func os(of model: String, at time: Date, scenarios: SimulationScenarios) -> SimulatedOS {
        let os = SimulatedOS.of(model: model)
        guard scenarios.stepsModel, model == scenarios.modelStepModel, !scenarios.modelStepHideOS,
            let at = scenarios.modelStepAt, time >= at
        else { return os }
        return os.updated
    }

    /// A phone's start, uniformly over the 3 years before `firstDay`.
    static func startDate(before firstDay: Date, draw: inout SplitMix64) -> Date {
        firstDay.addingTimeInterval(-draw.unit() * 3 * 365.25 * day)
    }

    static func shuffle<T>(_ items: inout [T], random: inout SplitMix64) {
        guard items.count > 1 else { return }
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(index, random.int(in: 0..<(index + 1)))
        }
    }

    /// The true level of `venue`'s cell at `time` (after its change, the new one); `nil` when closed.
    func trueLevel(venue: SimulatedVenue, weekday: Int, hour: Int, at time: Date) -> Double? {
        guard let level = venue.trueLevelDB(weekday: weekday, hour: hour) else { return nil }
        guard let change = changes[venue.id], change.applies(hour: hour, at: time) else { return level }
        return level + change.db
    }

    /// A fresh phone of one of the city's models (as common as among its phones).
    mutating func freshDevice(
        role: SimulatedDevice.Role, seed: UInt64, scenarios: SimulationScenarios, firstDay: Date?,
        random: inout SplitMix64
    ) -> SimulatedDevice {
        let honest = devices.filter { !$0.fullScale && $0.role == nil }
        let model = random.pick(honest.isEmpty ? devices : honest).model
        let modelBias = models.first { $0.model == model }?.biasDB ?? 0
        var device = SimulatedDevice(
            id: "sim-\(seed)-\(role.rawValue)-\(Self.uuid(&random))", model: model,
            biasDB: modelBias + random.normal(sd: 1), fullScale: false)
        device.role = role
        if scenarios.ages, let firstDay { device.startDate = Self.startDate(before: firstDay, draw: &random) }
        devices.append(device)
        return device
    }

    /// A check-in of `device` at the place and hour of `template` (a new minute, a new session
    /// at `levelDB` in the room), appended to the city.
    mutating func add(
        like template: PlannedCheckin, device: SimulatedDevice, levelDB: Double, kind: Contamination?,
        fake: SimulationTruth.Fake?, nearVenue: Bool, scenarios: SimulationScenarios, random: inout SplitMix64
    ) {
        guard let venue = venues.first(where: { $0.id == template.truth.venue }),
            let zone = TimeZone(identifier: venue.timezone)
        else { return }
        let seconds = random.int(in: 60..<241)
        let minute = random.int(in: 0..<(60 - (seconds + 59) / 60))
        let hourStart = (template.start.timeIntervalSince1970 / 3600).rounded(.down) * 3600
        var start = Date(timeIntervalSince1970: hourStart + Double(minute * 60))
        let local = VenueClock(timeZone: zone).localHour(at: start)
        if local.hour != template.truth.hour || local.weekday != template.truth.weekday { start = template.start }
        let drift = Self.drift(of: device, at: start, scenarios: scenarios)
        let generator = random
        var session = SimulatedSession.clean(trueDB: levelDB + drift, device: device, seconds: seconds, random: &random)
        if let kind { session.contaminate(kind, random: &random) }
        var location: (latitude: Double, longitude: Double)?
        if nearVenue || random.chance(0.5) {
            let away = kind == .wrongVenue ? 0.02 : 0.0
            location = (
                venue.latitude + away + random.double(in: -0.00015...0.00015),
                venue.longitude + random.double(in: -0.00015...0.00015)
            )
        }
        var truth = SimulationTruth.Checkin(
            id: Self.uuid(&random), venue: venue.id, device: device.id, weekday: template.truth.weekday,
            hour: template.truth.hour, contamination: kind, leqDBFS: session.leqDBFS,
            meanAmplitude: session.meanAmplitude, start: start)
        truth.fake = fake
        truth.afterChange = changes[venue.id].map { start >= $0.at }
        truth.phoneOffsetDB = device.biasDB + drift
        // `roomDB`: the level its session was drawn at, the phone's drift included (drawn again
        // from `generator` at it, the session is this one).
        checkins.append(
            PlannedCheckin(
                truth: truth, start: start, session: session, location: location, model: device.model,
                roomDB: levelDB + drift, device: device, seconds: seconds, generator: generator,
                os: Self.os(of: device.model, at: start, scenarios: scenarios)))
    }

    /// The room's level when `template` was made, at `time` in the same hour (its venue's change
    /// included).
    func roomLevel(of template: PlannedCheckin, at time: Date) -> Double {
        guard let change = changes[template.truth.venue], change.applies(hour: template.truth.hour, at: time) else {
            return template.roomDB
        }
        return template.roomDB + change.db
    }

    /// `count` distinct items of `items`, a seeded draw.
    static func choose(_ count: Int, of items: [String], random: inout SplitMix64) -> [String] {
        var items = items
        shuffle(&items, random: &random)
        return Array(items.prefix(count)).sorted()
    }

    private mutating func addFakes(
        _ scenarios: inout SimulationScenarios, base: [PlannedCheckin], seed: UInt64, now: Date
    ) -> [String] {
        var random = SplitMix64(seed: seed ^ 0x4641_4B45)  // "FAKE"
        let from = scenarios.fakeDays.map { now.addingTimeInterval(-$0 * Self.day) } ?? .distantPast
        scenarios.fakeFrom = scenarios.fakeDays == nil ? nil : from
        let during = Dictionary(grouping: base.filter { $0.start >= from }, by: \.truth.venue)
        let targets = Self.choose(scenarios.fakeVenues, of: during.keys.sorted(), random: &random)
        scenarios.fakeTargets = targets
        var notes: [String] = []
        for target in targets {
            guard let there = during[target], let venue = venues.first(where: { $0.id == target }) else { continue }
            let count = Int((Double(there.count) * scenarios.fakeShare / (1 - scenarios.fakeShare)).rounded())
            var made = 0
            var fakeDevices = 0
            while made < count {
                let visits = min(count - made, random.chance(0.5) ? 1 : 2)
                let device = freshDevice(role: .fake, seed: seed, scenarios: scenarios, firstDay: nil, random: &random)
                fakeDevices += 1
                for _ in 0..<visits {
                    let template = random.pick(there)
                    let level =
                        (trueLevel(
                            venue: venue, weekday: template.truth.weekday, hour: template.truth.hour, at: template.start
                        )
                            ?? template.roomDB) + scenarios.fakeDB
                    add(
                        like: template, device: device, levelDB: level, kind: nil, fake: .freshDevice, nearVenue: true,
                        scenarios: scenarios, random: &random)
                }
                made += visits
            }
            notes.append("fakes at \(target): \(made) from \(fakeDevices) fresh devices beside \(there.count) honest")
        }
        return notes
    }

    private mutating func addSlowBurns(
        _ scenarios: inout SimulationScenarios, base: [PlannedCheckin], seed: UInt64, now: Date
    ) -> [String] {
        var random = SplitMix64(seed: seed ^ 0x534C_4F57_4255_524E)  // "SLOWBURN"
        let from = now.addingTimeInterval(-scenarios.slowBurnAttackDays * Self.day)
        scenarios.slowBurnFrom = from
        let before = Dictionary(grouping: base.filter { $0.start < from }, by: \.truth.venue)
        let during = Dictionary(grouping: base.filter { $0.start >= from }, by: \.truth.venue)
        let excluded = Set(scenarios.fakeTargets ?? [])
        let candidates = before.keys.filter { during[$0] != nil && !excluded.contains($0) }.sorted()
        let targets = Self.choose(scenarios.slowBurnVenues, of: candidates, random: &random)
        scenarios.slowBurnTargets = targets
        var notes: [String] = []
        for target in targets {
            guard let honestThere = before[target], let attackThere = during[target],
                let venue = venues.first(where: { $0.id == target }), let first = honestThere.first?.start
            else { continue }
            let others = before.keys.filter { $0 != target }.sorted()
            let honestDays = from.timeIntervalSince(first) / Self.day
            var honest = 0
            var attacks = 0
            for _ in 0..<scenarios.slowBurnDevices {
                let device = freshDevice(
                    role: .slowBurn, seed: seed, scenarios: scenarios, firstDay: nil, random: &random)
                let other = others.isEmpty ? nil : random.pick(others)
                // About twice a week, one visit in seven at its other venue.
                for _ in 0..<max(2, Int((honestDays / 3.5).rounded())) {
                    let pool = other != nil && random.chance(1.0 / 7) ? before[other!] ?? honestThere : honestThere
                    let template = random.pick(pool)
                    add(
                        like: template, device: device, levelDB: roomLevel(of: template, at: template.start),
                        kind: nil, fake: nil, nearVenue: random.chance(0.5), scenarios: scenarios, random: &random)
                    honest += 1
                }
                for _ in 0..<max(1, Int((scenarios.slowBurnAttackDays * 0.7).rounded())) {
                    let template = random.pick(attackThere)
                    let level =
                        (trueLevel(
                            venue: venue, weekday: template.truth.weekday, hour: template.truth.hour, at: template.start
                        )
                            ?? template.roomDB) + scenarios.fakeDB
                    add(
                        like: template, device: device, levelDB: level, kind: nil, fake: .slowBurn, nearVenue: true,
                        scenarios: scenarios, random: &random)
                    attacks += 1
                }
            }
            notes.append(
                "slow burn at \(target): \(scenarios.slowBurnDevices) devices, \(honest) honest check-ins over "
                    + String(format: "%.1f days, then %d fake ones", honestDays, attacks))
            if honestDays < 13 {
                notes.append("  (a history of \(Int(honestDays)) days before the attack: use --engine for weeks)")
            }
        }
        return notes
    }

    private mutating func addNewcomers(
        _ scenarios: inout SimulationScenarios, base: [PlannedCheckin], seed: UInt64, contamination: Double,
        firstDay: Date, now: Date
    ) -> [String] {
        var random = SplitMix64(seed: seed ^ 0x4E45_5743_4F4D_4552)  // "NEWCOMER"
        let from = now.addingTimeInterval(-scenarios.newcomerDays * Self.day)
        scenarios.newcomerFrom = from
        let recent = base.filter { $0.start >= from && !$0.device.fullScale }
        guard !recent.isEmpty else { return ["newcomers: no check-ins in the last days to join"] }
        var made = 0
        for _ in 0..<scenarios.newcomers {
            let device = freshDevice(
                role: .newcomer, seed: seed, scenarios: scenarios, firstDay: firstDay, random: &random)
            for _ in 0..<random.int(in: 5...12) {
                let template = random.pick(recent)
                let kind = random.chance(contamination) ? Self.weightedKind(&random) : nil
                add(
                    like: template, device: device, levelDB: roomLevel(of: template, at: template.start), kind: kind,
                    fake: nil, nearVenue: false, scenarios: scenarios, random: &random)
                made += 1
            }
        }
        return ["newcomers: \(scenarios.newcomers) devices, \(made) check-ins"]
    }
}
