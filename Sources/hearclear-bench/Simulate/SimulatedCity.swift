import Foundation
import HearClearClient
import HearClearEngine
import LoudnessCore

/// A synthetic city: venues with true profiles, devices, and every check-in of the last `days`
/// days, generated deterministically from the seed before anything is sent.
struct SimulatedCity {
    struct PlannedCheckin {
        var truth: SimulationTruth.Checkin
        var start: Date
        var session: SimulatedSession
        var location: (latitude: Double, longitude: Double)?
        var model: String
        /// The room's level for this check-in (the cell's true level plus the evening's crowd),
        /// calibrated dB, before any scenario (a venue's change) moves it.
        var roomDB: Double
        /// The phone as it was when the city was drawn (its bias before any drift).
        var device: SimulatedDevice
        var seconds: Int
        /// The generator as it was just before the session was drawn: the session can be drawn
        /// again at another level with exactly the same fluctuation and junk (no draw depends on
        /// the level).
        var generator: SplitMix64
        /// What the phone says its system is (`device.os`), `nil` to send none.
        var os: SimulatedOS?

        /// The session again, `shiftDB` louder in the room or in the phone: the same draws.
        func session(shiftedBy shiftDB: Double) -> SimulatedSession {
            var random = generator
            var session = SimulatedSession.clean(
                trueDB: roomDB + shiftDB, device: device, seconds: seconds, random: &random)
            if let kind = truth.contamination { session.contaminate(kind, random: &random) }
            return session
        }

        /// Draws the session again `shiftDB` louder and records its levels in the truth.
        mutating func shift(by shiftDB: Double) {
            guard shiftDB != 0 else { return }
            session = session(shiftedBy: shiftDB)
            truth.leqDBFS = session.leqDBFS
            truth.meanAmplitude = session.meanAmplitude
        }
    }

    /// Share of contaminated check-ins that come from always-full-scale devices.
    static let fullScaleShare = 0.15

    var venues: [SimulatedVenue] = []
    var models: [SimulatedModel] = []
    var devices: [SimulatedDevice] = []
    var checkins: [PlannedCheckin] = []
    /// Venues that changed (`--change-share`), by id.
    var changes: [String: SimulationTruth.VenueChange] = [:]
    /// The trust scenarios applied, with what they drew; `nil`: none applied.
    var scenarios: SimulationScenarios?

    init(
        seed: UInt64, venueCount: Int, days: Int, contamination: Double, rate: Double, occasionSD: Double = 0,
        models: [SimulatedModel], now: Date = Date(), place: SimulatedPlace? = nil
    ) {
        self.models = models
        var random = SplitMix64(seed: seed)
        venues = (0..<venueCount).map { SimulatedVenue.make(index: $0, seed: seed, place: place, random: &random) }
        place?.name(&venues)
        let fullScaleCount = contamination > 0 ? max(1, venueCount / 10) : 0
        devices = (0..<max(10, venueCount * 6) + fullScaleCount).map { index in
            SimulatedDevice.make(
                index: index, seed: seed, fullScale: index < fullScaleCount, models: models, random: &random)
        }
        let honest = devices.filter { !$0.fullScale }
        let broken = devices.filter(\.fullScale)
        for venue in venues {
            guard let zone = TimeZone(identifier: venue.timezone) else { continue }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let clock = VenueClock(timeZone: zone)
            let today = calendar.startOfDay(for: now)
            for day in 1...days {
                guard let date = calendar.date(byAdding: .day, value: -day, to: today) else { continue }
                for hour in 0..<24 {
                    // This evening's crowd: every check-in of the hour shares it (no draw at 0, so
                    // an older city can be rebuilt from its seed).
                    let occasion = occasionSD > 0 ? random.normal(sd: occasionSD) : 0
                    let visits = random.poisson(rate)
                    for _ in 0..<visits {
                        let visit = Self.visit(
                            to: venue, hour: hour, of: date, calendar: calendar, clock: clock, occasion: occasion,
                            contamination: contamination, honest: honest, broken: broken, random: &random)
                        if let visit { checkins.append(visit) }
                    }
                }
            }
        }
    }

    /// One visit to `venue` at `hour` of `date`, drawn from `random`: its session (spoiled with a
    /// chance of `contamination`), phone and place; nil when the minute drawn is not in the venue's
    /// `hour` (a clock change) or the venue is closed then.
    private static func visit(
        to venue: SimulatedVenue, hour: Int, of date: Date, calendar: Calendar, clock: VenueClock, occasion: Double,
        contamination: Double, honest: [SimulatedDevice], broken: [SimulatedDevice], random: inout SplitMix64
    ) -> PlannedCheckin? {
        let seconds = random.int(in: 60..<241)
        let minute = random.int(in: 0..<(60 - (seconds + 59) / 60))
        guard let start = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: date),
            case let local = clock.localHour(at: start),
            local.hour == hour,
            let trueDB = venue.trueLevelDB(weekday: local.weekday, hour: hour)
        else { return nil }
        var kind: Contamination?
        if random.chance(contamination) {
            kind = !broken.isEmpty && random.chance(fullScaleShare) ? .fullScale : weightedKind(&random)
        }
        let device = kind == .fullScale ? random.pick(broken) : random.pick(honest)
        let generator = random
        var session = SimulatedSession.clean(
            trueDB: trueDB + occasion, device: device, seconds: seconds, random: &random)
        if let kind { session.contaminate(kind, random: &random) }
        var location: (Double, Double)?
        if random.chance(0.5) {
            let away = kind == .wrongVenue ? 0.02 : 0.0002
            location = (venue.latitude + away, venue.longitude + random.double(in: -0.0002...0.0002))
        }
        let truth = SimulationTruth.Checkin(
            id: uuid(&random), venue: venue.id, device: device.id, weekday: local.weekday, hour: hour,
            contamination: kind, leqDBFS: session.leqDBFS, meanAmplitude: session.meanAmplitude, start: start)
        return PlannedCheckin(
            truth: truth, start: start, session: session, location: location, model: device.model,
            roomDB: trueDB + occasion, device: device, seconds: seconds, generator: generator)
    }

    /// Leaves out every check-in of about `share` of the true cells, and of every weekday of about
    /// `hourShare` of each venue's open hours (a draw per cell or venue-hour from its own seed, so
    /// the rest of the city is what it would have been); returns the hidden cells' keys. A venue
    /// has no pattern to estimate a wholly hidden hour from; only its neighbours can.
    mutating func hideCells(share: Double, hourShare: Double = 0, seed: UInt64) -> Set<String> {
        guard share > 0 || hourShare > 0 else { return [] }
        var hidden: Set<String> = []
        for venue in venues {
            var hiddenHours: Set<Int> = []
            for hour in 0..<24 where hourShare > 0 {
                var draw = SplitMix64(seed: seed ^ FNV1a.hash("\(venue.id)|hour|\(hour)"))
                if draw.unit() < hourShare { hiddenHours.insert(hour) }
            }
            for weekday in 1...7 {
                for hour in 0..<24 where venue.trueLevelDB(weekday: weekday, hour: hour) != nil {
                    let key = "\(venue.id)|\(weekday)|\(hour)"
                    var draw = SplitMix64(seed: seed ^ FNV1a.hash(key))
                    if draw.unit() < share || hiddenHours.contains(hour) { hidden.insert(key) }
                }
            }
        }
        checkins.removeAll { hidden.contains("\($0.truth.venue)|\($0.truth.weekday)|\($0.truth.hour)") }
        return hidden
    }

    /// The true levels of every open hour of every venue.
    /// (A changed venue's cells are true *now*: the level after the change, with the one before.)
    func truth(
        seed: UInt64, contamination: Double, occasionSD: Double, hiddenCells: Set<String> = [],
        generatedAt: Date? = nil
    ) -> SimulationTruth {
        let venueTruths = venues.map { venue in
            let change = changes[venue.id]
            return SimulationTruth.VenueTruth(
                venue: venue,
                cells: (1...7).flatMap { weekday in
                    (0..<24).compactMap { hour in
                        venue.trueLevelDB(weekday: weekday, hour: hour).map { level in
                            guard let change, change.applies(hour: hour) else {
                                return SimulationTruth.Cell(weekday: weekday, hour: hour, trueDB: level)
                            }
                            return SimulationTruth.Cell(
                                weekday: weekday, hour: hour, trueDB: level + change.db, beforeChangeDB: level)
                        }
                    }
                }, change: change)
        }
        return SimulationTruth(
            seed: seed, contamination: contamination, occasionSD: occasionSD,
            referenceOffsetDB: SimulatedSession.referenceOffsetDB,
            venues: venueTruths, models: models, devices: devices, checkins: checkins.map(\.truth),
            hiddenCells: hiddenCells.isEmpty ? nil : hiddenCells.sorted(), scenarios: scenarios,
            generatedAt: generatedAt)
    }

    /// The v2 check-in of a planned one.
    func checkin(_ planned: PlannedCheckin) throws -> Components.Schemas.CheckinInput {
        guard let venue = venues.first(where: { $0.id == planned.truth.venue }) else {
            throw SimulationError("unknown venue \(planned.truth.venue)")
        }
        let samples = planned.session.averageDBFS.indices.map { second in
            Components.Schemas.Sample(
                t: planned.start.addingTimeInterval(Double(second)),
                average: (planned.session.averageDBFS[second] * 100).rounded() / 100,
                peak: (planned.session.peakDBFS[second] * 100).rounded() / 100)
        }
        return Components.Schemas.CheckinInput(
            id: planned.truth.id,
            venue: .init(
                id: venue.id, name: venue.name, latitude: venue.latitude, longitude: venue.longitude,
                timezone: venue.timezone, category: venue.kind.rawValue),
            device: .init(
                id: planned.truth.device, model: planned.model,
                os: planned.os.map { .init(name: $0.name, version: $0.version) }),
            location: planned.location.map { .init(latitude: $0.latitude, longitude: $0.longitude, accuracy: 15) },
            unit: .dbfs, samples: samples)
    }

    static func weightedKind(_ random: inout SplitMix64) -> Contamination {
        var draw = random.unit()
        for (kind, weight) in Contamination.weights {
            if draw < weight { return kind }
            draw -= weight
        }
        return .pocket
    }

    static func uuid(_ random: inout SplitMix64) -> String {
        let high = random.next()
        let low = random.next()
        let hex = String(format: "%016llx%016llx", high, low)
        let characters = Array(hex)
        func part(_ range: Range<Int>) -> String { String(characters[range]) }
        // Version 4 and RFC 4122 variant bits, so it is a well-formed random UUID.
        return "\(part(0..<8))-\(part(8..<12))-4\(part(13..<16))-a\(part(17..<20))-\(part(20..<32))"
    }
}
