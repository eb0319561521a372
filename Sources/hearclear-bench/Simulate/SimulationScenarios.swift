import ArgumentParser
import Foundation

/// The trust scenarios of `simulate` ("trust in a changing world"): venues whose level changes
/// lastingly, phones that drift, fake check-ins and honest newcomers. Every one is off by default
/// and draws from its own generator, so a city with a scenario off is the city of before, and one
/// turned on changes only what it must. Written with the truth, with what was drawn (targets,
/// times).
struct SimulationScenarios: Codable, Sendable, Equatable {
    // A venue that changes.
    var changeShare = 0.0
    var changeDB = 6.0
    var changeDaysAgo = 5.0
    /// Venue-local hours of the day the change applies to; `nil`: all.
    var changeHours: [Int]?
    var changeAt: Date?

    // A phone model's step (an OS update).
    var modelStepDB = 0.0
    var modelStepDaysAgo = 6.0
    /// The model that steps: asked for, or the city's most common by check-ins.
    var modelStepModel: String?
    var modelStepHideOS = false
    var modelStepAt: Date?
    /// The system its phones report before and after the step.
    var modelStepOSBefore: SimulatedOS?
    var modelStepOSAfter: SimulatedOS?

    // One phone's step.
    var deviceSteps = 0
    var deviceStepDB = -6.0
    var deviceStepDaysAgo = 4.0
    var deviceStepAt: Date?
    var steppedDevices: [String]?

    // Slow ageing of every phone.
    var ageingDBPerYear = 0.0

    // Fake check-ins from fresh device ids.
    var fakeVenues = 0
    var fakeShare = 0.3
    var fakeDB = 12.0
    /// Over the last this many days; `nil`: all days.
    var fakeDays: Double?
    var fakeFrom: Date?
    var fakeTargets: [String]?

    // Slow burn.
    var slowBurnVenues = 0
    var slowBurnDevices = 5
    var slowBurnAttackDays = 5.0
    var slowBurnFrom: Date?
    var slowBurnTargets: [String]?

    // Honest newcomers.
    var newcomers = 0
    var newcomerDays = 5.0
    var newcomerFrom: Date?

    var changesVenues: Bool { changeShare > 0 }
    var stepsModel: Bool { modelStepDB != 0 }
    var stepsDevices: Bool { deviceSteps > 0 }
    var ages: Bool { ageingDBPerYear != 0 }
    var fakes: Bool { fakeVenues > 0 }
    var slowBurns: Bool { slowBurnVenues > 0 }
    var addsNewcomers: Bool { newcomers > 0 }
    /// Whether any scenario is on.
    var isActive: Bool {
        changesVenues || stepsModel || stepsDevices || ages || fakes || slowBurns || addsNewcomers
    }
    /// Whether a phone's reading moves with time (the oracle then needs each check-in's offset).
    var drifts: Bool { stepsModel || stepsDevices || ages }

    /// What is on, in a line.
    var summary: String {
        var parts: [String] = []
        if changesVenues {
            parts.append(
                String(
                    format: "venues change (share %.2f, %+.1f dB, %.1f days ago, hours %@)", changeShare, changeDB,
                    changeDaysAgo, Self.describe(hours: changeHours)))
        }
        if stepsModel {
            parts.append(
                String(
                    format: "model %@ steps %+.1f dB %.1f days ago%@", modelStepModel ?? "?", modelStepDB,
                    modelStepDaysAgo, modelStepHideOS ? " (its OS version not told)" : ""))
        }
        if stepsDevices {
            parts.append(
                String(format: "%d phone(s) step %+.1f dB %.1f days ago", deviceSteps, deviceStepDB, deviceStepDaysAgo))
        }
        if ages { parts.append(String(format: "every phone ages %+.2f dB a year", ageingDBPerYear)) }
        if fakes {
            parts.append(
                String(
                    format: "fakes at %d venue(s), share %.2f, %+.1f dB, %@", fakeVenues, fakeShare, fakeDB,
                    fakeDays.map { String(format: "last %.1f days", $0) } ?? "all days"))
        }
        if slowBurns {
            parts.append(
                String(
                    format: "slow burn at %d venue(s), %d devices each, attack %+.1f dB over the last %.1f days",
                    slowBurnVenues, slowBurnDevices, fakeDB, slowBurnAttackDays))
        }
        if addsNewcomers {
            parts.append(String(format: "%d honest newcomers in the last %.1f days", newcomers, newcomerDays))
        }
        return parts.isEmpty ? "none" : parts.joined(separator: "; ")
    }

    /// `22-24` (22:00–23:59), `22-3` (wrapping past midnight), `0-24` (all): the hours from A up to
    /// but not including B.
    static func parseHours(_ text: String) -> [Int]? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Int(parts[0]), let to = Int(parts[1]), (0...23).contains(from),
            (1...24).contains(to), from != to % 24 || (from == 0 && to == 24)
        else { return nil }
        if from == 0 && to == 24 { return Array(0..<24) }
        return from < to ? Array(from..<to) : Array(from..<24) + Array(0..<to)
    }

    static func describe(hours: [Int]?) -> String {
        guard let hours, hours.count < 24, let first = hours.first, let last = hours.last else { return "all" }
        return "\(first)-\(last + 1)"
    }
}

/// The options of the trust scenarios (`simulate --help` lists them).
struct ScenarioOptions: ParsableArguments {
    @Option(
        help: """
            Share of venues (a draw per venue) whose level changes lastingly --change-days-ago days ago, \
            0…1: their check-ins since then, in --change-hours, read --change-db more (the room is louder: \
            fluctuation and junk are as before). 0: none.
            """)
    var changeShare = 0.0
    @Option(
        parsing: .unconditional, help: "How much a changing venue's level moves, dB (negative: quieter), -30…30.")
    var changeDB = 6.0
    @Option(help: "When the venues change, days before now (fractions allowed), in (0, --days].")
    var changeDaysAgo = 5.0
    @Option(
        help: """
            Venue-local hours A-B the change applies to, from A:00 to B:00 (B not included): 22-24 is \
            22:00–23:59 (a DJ after 22:00), 22-3 wraps past midnight, 0-24 is every hour (the default).
            """)
    var changeHours = "0-24"

    @Option(
        parsing: .unconditional,
        help: """
            A phone model's step (an OS update), dB, -20…20: from --model-step-days-ago its phones read this \
            much more and report the next major OS version in device.os. 0: none.
            """)
    var modelStepDB = 0.0
    @Option(help: "When the model steps, days before now, in (0, --days].") var modelStepDaysAgo = 6.0
    @Option(help: "The model that steps (one of the city's); default: the city's most common by check-ins.")
    var modelStepModel: String?
    @Flag(help: "Its phones keep reporting the old OS version: the server must find the step untold.")
    var modelStepHideOs = false

    @Option(
        help: """
            Honest phones (a seeded draw among those with ≥ 3 check-ins after the step) whose own \
            microphone steps (a case over it), 0…1000. 0: none.
            """)
    var deviceSteps = 0
    @Option(
        parsing: .unconditional, help: "How much a stepping phone's reading moves, dB, -30…30.") var deviceStepDB = -6.0
    @Option(help: "When the phones step, days before now, in (0, --days].") var deviceStepDaysAgo = 4.0

    @Option(
        parsing: .unconditional,
        help: """
            Every phone drifts this many dB a year from its own start, drawn uniformly over the 3 years \
            before the city's first day, -10…10. 0: none.
            """)
    var ageingDBPerYear = 0.0

    @Option(
        help: """
            Venues (a seeded draw) that get fake check-ins from fresh device ids (1 or 2 each, a plausible \
            model, a location at the venue, clean sessions at the true level + --fake-db), 0…--venues. 0: none.
            """)
    var fakeVenues = 0
    @Option(
        help: """
            The fakes' share of a target's check-ins over the attack, in (0, 0.9]: S/(1−S) times its \
            honest ones there.
            """)
    var fakeShare = 0.3
    @Option(
        parsing: .unconditional,
        help: "How far the fakes (and a slow burn's attack) are from the true level, dB, -40…40.")
    var fakeDB = 12.0
    @Option(help: "The fakes come over the last this many days, in (0, --days]; default: all days.")
    var fakeDays: Double?

    @Option(
        help: """
            Venues (a seeded draw, not the fakes' targets) each watched by --slow-burn-devices fake devices \
            that check in honestly for weeks (now and then at one other venue), then at the true level + \
            --fake-db over the last --slow-burn-attack-days days, 0…--venues. Needs a history over 13 days \
            (--engine). 0: none.
            """)
    var slowBurnVenues = 0
    @Option(help: "Fake devices per slow-burn venue, 1…100.") var slowBurnDevices = 5
    @Option(help: "The slow burn's attack: the last this many days, in (0, --days).") var slowBurnAttackDays = 5.0

    @Option(
        help: """
            Fresh honest devices added on top of the city (their own draws: the city is unchanged), each \
            making 5–12 check-ins, the first within the last --newcomer-days days, 0…10000. 0: none.
            """)
    var newcomers = 0
    @Option(help: "Newcomers arrive within the last this many days, in (0, --days].") var newcomerDays = 5.0

    /// Checks every range; `days` and `venues` of the city, `models` its model names.
    func validate(days: Int, venues: Int, models: [String]) throws {
        func within(_ value: Double, _ name: String, days: Int) throws {
            guard value > 0, value <= Double(days) else {
                throw ValidationError("--\(name) must be in (0, --days] (\(days)), not \(value)")
            }
        }
        guard (0...1).contains(changeShare) else { throw ValidationError("--change-share must be 0…1") }
        guard (-30...30).contains(changeDB) else { throw ValidationError("--change-db must be -30…30 dB") }
        // A scenario's times are checked against --days only when it is on (the defaults need 6 days).
        if changeShare > 0 { try within(changeDaysAgo, "change-days-ago", days: days) }
        guard SimulationScenarios.parseHours(changeHours) != nil else {
            throw ValidationError(
                "--change-hours must be A-B with A 0…23 and B 1…24, A ≠ B (e.g. 22-24, 22-3, 0-24), not \(changeHours)")
        }
        guard (-20...20).contains(modelStepDB) else { throw ValidationError("--model-step-db must be -20…20 dB") }
        if modelStepDB != 0 { try within(modelStepDaysAgo, "model-step-days-ago", days: days) }
        if let modelStepModel, !models.contains(modelStepModel) {
            throw ValidationError(
                "--model-step-model must be one of the city's models: \(models.joined(separator: ", "))")
        }
        guard (0...1000).contains(deviceSteps) else { throw ValidationError("--device-steps must be 0…1000") }
        guard (-30...30).contains(deviceStepDB) else { throw ValidationError("--device-step-db must be -30…30 dB") }
        if deviceSteps > 0 { try within(deviceStepDaysAgo, "device-step-days-ago", days: days) }
        guard (-10...10).contains(ageingDBPerYear) else {
            throw ValidationError("--ageing-db-per-year must be -10…10 dB")
        }
        guard (0...venues).contains(fakeVenues) else { throw ValidationError("--fake-venues must be 0…--venues") }
        guard fakeShare > 0, fakeShare <= 0.9 else { throw ValidationError("--fake-share must be in (0, 0.9]") }
        guard (-40...40).contains(fakeDB) else { throw ValidationError("--fake-db must be -40…40 dB") }
        if let fakeDays, fakeVenues > 0 { try within(fakeDays, "fake-days", days: days) }
        guard (0...venues).contains(slowBurnVenues) else {
            throw ValidationError("--slow-burn-venues must be 0…--venues")
        }
        guard (1...100).contains(slowBurnDevices) else { throw ValidationError("--slow-burn-devices must be 1…100") }
        guard slowBurnVenues == 0 || (slowBurnAttackDays > 0 && slowBurnAttackDays < Double(days)) else {
            throw ValidationError("--slow-burn-attack-days must be in (0, --days) (\(days))")
        }
        guard (0...10_000).contains(newcomers) else { throw ValidationError("--newcomers must be 0…10000") }
        if newcomers > 0 { try within(newcomerDays, "newcomer-days", days: days) }
    }

    var scenarios: SimulationScenarios {
        var scenarios = SimulationScenarios()
        scenarios.changeShare = changeShare
        scenarios.changeDB = changeDB
        scenarios.changeDaysAgo = changeDaysAgo
        let hours = SimulationScenarios.parseHours(changeHours)
        scenarios.changeHours = hours?.count == 24 ? nil : hours
        scenarios.modelStepDB = modelStepDB
        scenarios.modelStepDaysAgo = modelStepDaysAgo
        scenarios.modelStepModel = modelStepModel
        scenarios.modelStepHideOS = modelStepHideOs
        scenarios.deviceSteps = deviceSteps
        scenarios.deviceStepDB = deviceStepDB
        scenarios.deviceStepDaysAgo = deviceStepDaysAgo
        scenarios.ageingDBPerYear = ageingDBPerYear
        scenarios.fakeVenues = fakeVenues
        scenarios.fakeShare = fakeShare
        scenarios.fakeDB = fakeDB
        scenarios.fakeDays = fakeDays
        scenarios.slowBurnVenues = slowBurnVenues
        scenarios.slowBurnDevices = slowBurnDevices
        scenarios.slowBurnAttackDays = slowBurnAttackDays
        scenarios.newcomers = newcomers
        scenarios.newcomerDays = newcomerDays
        return scenarios
    }
}
