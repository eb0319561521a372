import Foundation
import HearClearEngine

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

    // HOOK: when was each changed venue's change detected (its `changedAt` as the engine keeps it,
    // and the check-in that set it off)? The served `changedAt` is scored from the API already.
    static func changeDetection(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        ["(hook DatabaseFigures.changeDetection: not filled in yet)"]
    }

    // HOOK: when did the engine notice the model's step, and what offsets did it give the model
    // before and after (and, with its OS version told, per version)?
    static func modelStep(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        ["(hook DatabaseFigures.modelStep: not filled in yet)"]
    }

    // HOOK: which devices are flagged or down-weighted, against the truth's stepped phones, fake
    // and slow-burn devices (ids as the truth names them: the engine keys them).
    static func flaggedDevices(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        ["(hook DatabaseFigures.flaggedDevices: not filled in yet)"]
    }

    // HOOK: the weights given to newcomers' check-ins (and to fresh fake devices'), against the
    // city's established phones.
    static func newcomerWeights(engine: Engine, truth: SimulationTruth) async throws -> [String] {
        ["(hook DatabaseFigures.newcomerWeights: not filled in yet)"]
    }
}
