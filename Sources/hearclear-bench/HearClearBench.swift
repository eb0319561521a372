import ArgumentParser

/// The developers' tools that an operator does not ship: load generators against a running
/// server and the simulated city that measures the engine's methods (docs/OPERATIONS.md, "Health,
/// metrics, limits, logs, stopping, migrations, load tests"; docs/API.md, "A changing, dishonest city").
@main
struct HearClearBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearclear-bench",
        abstract: "HearClear's load tests and simulator, against a running server.",
        subcommands: [Simulate.self, Loadtest.self]
    )
}
