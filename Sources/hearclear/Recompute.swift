import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel
import HearClearStore

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
            let queue = AggregationQueue(client: engine.client, logger: engine.logger)
            // Each venue is judged once here: nothing to remember.
            let aggregator = Aggregator(client: engine.client, logger: engine.logger, memoryCapacity: 0)
            if let venue {
                guard let key = try await queue.venueKey(externalID: venue) else {
                    FileHandle.standardError.write(Data("No venue has id \(venue).\n".utf8))
                    throw ExitCode.failure
                }
                try await queue.forgetCleaning(venueID: key)
                try await aggregator.recompute(venueID: key)
                print("Recomputed venue \(venue).")
                return
            }
            try await queue.forgetCleaning()
            try await queue.enqueueAll()
            let total = try await queue.pendingVenueCount()
            let progress = ProgressBar(total: total, label: "venues")
            var processed = 0
            var busy: Set<Int64> = []
            while true {
                let batch = try await aggregator.processNext(limit: 16, skipping: busy)
                processed += batch.processed.count
                busy.formUnion(batch.busy)
                if !batch.processed.isEmpty { progress.update(processed) }
                if batch.isEmpty {
                    guard !busy.isEmpty, try await queue.pendingVenueCount() > 0 else {
                        progress.finish(processed)
                        let shared = processed < total ? "; running servers took the others" : ""
                        print("Recomputed \(processed) of \(total) venue(s)\(shared).")
                        return
                    }
                    busy = []
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
    }
}
