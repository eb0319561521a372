import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel

struct Recompute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-judge check-ins and rebuild cells, for every venue or one (e.g. after a method change).",
        discussion: """
            Cleans every check-in again (the stored cleaning is forgotten), queues the venues and \
            processes them here, with a progress bar on a terminal. Running servers \
            on the same database share the work safely (a venue is never processed twice at once).
            """
    )

    @Option(help: "Only this venue (its external id).") var venue: String?
    @OptionGroup var options: ServerOptions

    func run() async throws {
        try await DatabaseSession.run(options) { engine, _ in
            let recomputation = engine.recomputation()
            if let venue {
                guard try await recomputation.venue(externalID: venue) else {
                    FileHandle.standardError.write(Data("No venue has id \(venue).\n".utf8))
                    throw ExitCode.failure
                }
                print("Recomputed venue \(venue).")
                return
            }
            let total = try await recomputation.queueAll()
            let progress = ProgressBar(total: total, label: "venues")
            let processed = try await recomputation.processQueued { progress.update($0) }
            progress.finish(processed)
            let shared = processed < total ? "; running servers took the others" : ""
            print("Recomputed \(processed) of \(total) venue(s)\(shared).")
        }
    }
}
