import Foundation
import HearClearEngine
import LoudnessCore

/// Figures of `simulate --evaluate` that only the server's database knows, read through the
/// engine when `--data-dir` or `--database-url` is given (`DatabaseSession.run`); each section of
/// the evaluation prints "(needs --data-dir)" where they go without it.
///
/// HOOKS for the server's trust work: fill in ``collect(engine:truth:)`` section by section as the
/// engine learns to tell these. Each returns the lines printed, indented, under its section.
enum DatabaseFigures {
    enum Section: String, CaseIterable, Sendable {
        /// When the server detected each changed venue's change (and changes it found where there
        /// was none).
        case change
        /// A model's step: when the server saw it, the model's offsets before and after.
        case modelStep = "model_step"
        /// Which devices the server flagged or down-weighted (stepped phones, fakes, slow burns).
        case devices
        /// The weights the server gives newcomers' (and fresh fake devices') check-ins.
        case newcomers
    }

    /// What goes where a section says "(needs --data-dir)".
    static let placeholder = "(needs --data-dir)"

    static func collect(engine: Engine, truth: SimulationTruth) async throws -> [Section: [String]] {
        var figures: [Section: [String]] = [:]
        guard let scenarios = truth.scenarios else { return figures }
        if scenarios.changesVenues { figures[.change] = try await changeDetection(engine: engine, truth: truth) }
        if scenarios.stepsModel { figures[.modelStep] = try await modelStep(engine: engine, truth: truth) }
        if scenarios.stepsDevices || scenarios.fakes || scenarios.slowBurns {
            figures[.devices] = try await flaggedDevices(engine: engine, truth: truth)
        }
        if scenarios.addsNewcomers || scenarios.fakes {
            figures[.newcomers] = try await newcomerWeights(engine: engine, truth: truth)
        }
        return figures
    }

    /// When the server detected each changed venue's change, counted in the venue's check-ins
    /// since the true change (those started up to the judgement that first raised it), and how
    /// many stable venues raised one anyway.
    static func changeDetection(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        let venues = truth.venues.map(\.venue.id)
        let found = try await engine.trust.changes(venueExternalIDs: venues)
        var delays: [Int] = []
        var missed = 0
        var early = 0
        var falseChanges = 0
        var stable = 0
        for venue in truth.venues {
            let changes = found[venue.venue.id] ?? []
            guard let change = venue.change else {
                stable += 1
                if !changes.isEmpty { falseChanges += 1 }
                continue
            }
            let starts = truth.checkins.filter { $0.venue == venue.venue.id }.compactMap(\.start)
            let raised = changes.filter { $0.changedAt >= change.at.addingTimeInterval(-86_400) }
                .min { $0.detectedAt < $1.detectedAt }
            guard let raised else {
                if changes.isEmpty { missed += 1 } else { early += 1 }
                continue
            }
            delays.append(starts.count { $0 >= change.at && $0 <= raised.detectedAt })
        }
        let sorted = delays.sorted()
        func percentile(_ p: Double) -> String {
            sorted.isEmpty ? "-" : "\(sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))])"
        }
        return [
            "changed venues: \(delays.count + missed + early), detected \(delays.count), missed \(missed), only raised before the change \(early)",
            "check-ins since the change when it was raised: median \(percentile(0.5)), 90th percentile \(percentile(0.9)) "
                + "(each: \(sorted.map(String.init).joined(separator: " ")))",
            "stable venues that raised a change: \(falseChanges) of \(stable)"
                + String(format: " (%.1f %%)", 100 * Double(falseChanges) / Double(max(stable, 1))),
        ]
    }

    /// What the engine gave the stepped model: its offset in force (and before its step, when it
    /// found one).
    static func modelStep(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        guard let model = truth.scenarios?.modelStepModel else { return [] }
        let models = try await engine.calibrator.models()
        guard let found = models.first(where: { $0.model == model }) else { return ["\(model): not fitted"] }
        return [
            "\(model): in force \(found.inForce.map { String(format: "%+.2f dB (%@)", $0.offsetDB, $0.source.rawValue) } ?? "none")"
        ]
    }

    /// The stepped phones: when the server flagged each (in its check-ins since the step), and the
    /// trust it gives fake, slow-burn and honest devices.
    static func flaggedDevices(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        let standings = try await engine.trust.standings(clientIDs: truth.devices.map(\.id))
        var lines: [String] = []
        if let stepped = truth.scenarios?.steppedDevices, let at = truth.scenarios?.deviceStepAt {
            var delays: [Int] = []
            var missed = 0
            for device in stepped {
                guard let detected = standings[device]?.stepDetectedAt else {
                    missed += 1
                    continue
                }
                delays.append(
                    truth.checkins.count {
                        $0.device == device && ($0.start ?? .distantPast) >= at
                            && ($0.start ?? .distantFuture) <= detected
                    })
            }
            lines.append(
                "stepped phones: \(stepped.count), flagged \(delays.count) after \(delays.sorted().map(String.init).joined(separator: ", ")) "
                    + "of their check-ins since the step; not flagged \(missed)")
        }
        let honest = truth.devices.filter { $0.role == nil && !$0.fullScale }
        let flaggedHonest = honest.count {
            standings[$0.id]?.stepDB != nil && !(truth.scenarios?.steppedDevices ?? []).contains($0.id)
        }
        lines.append("honest phones flagged with a step they did not take: \(flaggedHonest) of \(honest.count)")
        for (role, name) in [(SimulatedDevice.Role.fake, "fake"), (.slowBurn, "slow burn"), (.newcomer, "newcomer")] {
            let devices = truth.devices.filter { $0.role == role }
            guard !devices.isEmpty else { continue }
            let trusts = devices.map { standings[$0.id]?.trust ?? DeviceTrust.floor }
            lines.append(
                String(
                    format: "%@ devices: %d, trust mean %.2f, at the floor %d, full %d", name, devices.count,
                    trusts.reduce(0, +) / Double(trusts.count), trusts.count { $0 <= DeviceTrust.floor + 1e-6 },
                    trusts.count { $0 >= 1 - 1e-6 }))
        }
        let established = honest.map { standings[$0.id]?.trust ?? DeviceTrust.floor }
        lines.append(
            String(
                format: "the city's own phones: %d, trust mean %.2f, full %d", established.count,
                established.reduce(0, +) / Double(max(established.count, 1)), established.count { $0 >= 1 - 1e-6 }))
        return lines
    }

    /// Newcomers: of those with at least 5 check-ins that agree with the crowd (clean, honest),
    /// how many the server still down-weights (trust under 1).
    static func newcomerWeights(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        let newcomers = truth.devices.filter { $0.role == .newcomer }
        guard !newcomers.isEmpty else { return [] }
        let standings = try await engine.trust.standings(clientIDs: newcomers.map(\.id))
        let clean = Dictionary(
            grouping: truth.checkins.filter { $0.contamination == nil && $0.fake == nil }, by: \.device)
        let eligible = newcomers.filter { (clean[$0.id]?.count ?? 0) >= 5 }
        let down = eligible.filter { (standings[$0.id]?.trust ?? 0) < 1 - 1e-6 }
        return [
            "newcomers with ≥ 5 clean check-ins: \(eligible.count); down-weighted (trust < 1): \(down.count)"
                + String(format: " (%.1f %%)", 100 * Double(down.count) / Double(max(eligible.count, 1)))
                + "; their co-located check-ins counted: "
                + down.map { "\(standings[$0.id]?.checkins ?? 0)" }.joined(separator: ", ")
        ]
    }
}
