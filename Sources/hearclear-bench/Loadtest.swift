import ArgumentParser

struct Loadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks against a running server.",
        subcommands: [IngestLoadtest.self, ReadLoadtest.self, SearchLoadtest.self]
    )
}
