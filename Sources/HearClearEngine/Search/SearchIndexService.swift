import Foundation
import HearClearModel
import HearClearStore
import Logging
import ServiceLifecycle

/// Loads the ``SearchIndex`` and keeps it true (docs/ARCHITECTURE.md, "Search"): each time the
/// listener listens it streams every venue from PostgreSQL into a new table (a log line with the
/// count, bytes and seconds) and puts it in; then it reads again, in batches, the venues the
/// notifications name. Reads go to the primary, where a notified change is committed.
public struct SearchIndexService: Service {
    let index: SearchIndex
    let repository: SearchIndexRepository
    let logger: Logger
    /// Wait before trying again after a failed read.
    var retryDelay: Duration = .seconds(1)

    /// Keeps `index` true from `engine`'s primary database.
    public init(index: SearchIndex, engine: Engine) {
        self.index = index
        repository = SearchIndexRepository(client: engine.client, logger: engine.logger)
        logger = engine.logger
    }

    public func run() async {
        guard index.status.phase != .off else { return }
        await cancelWhenGracefulShutdown {
            for await _ in index.wakes {
                await drain()
            }
        }
    }

    /// Does whatever is due until nothing is.
    func drain() async {
        while !Task.isCancelled, let work = index.nextWork() {
            switch work {
            case .load(let generation):
                await load(generation: generation)
            case .refresh(let externalIDs, let ticket, let generation):
                do {
                    let rows = try await repository.rows(externalIDs: externalIDs)
                    index.apply(rows, asked: externalIDs, ticket: ticket, generation: generation)
                } catch {
                    logger.warning(
                        "search index: reading changed venues failed; trying again",
                        metadata: ["venues": "\(externalIDs.count)", "error": "\(String(reflecting: error))"])
                    try? await Task.sleep(for: retryDelay)
                }
            }
        }
    }

    private func load(generation: UInt64) async {
        let started = ContinuousClock.now
        var table = index.emptyTable()
        do {
            try await repository.all { row in table.insert(row) }
            // Here, before it answers, not under the index's lock at a search's first reading.
            table.orderNameBuckets()
        } catch {
            logger.warning(
                "search index: loading failed; PostgreSQL answers searches until it loads",
                metadata: ["error": "\(String(reflecting: error))"])
            index.loadFailed(generation: generation)
            try? await Task.sleep(for: retryDelay)
            return
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        if index.install(table, generation: generation) {
            logger.info(
                "search index loaded",
                metadata: [
                    "venues": "\(table.count)", "with_cells": "\(table.venuesWithLevels)",
                    "bytes": "\(table.bytes)", "seconds": "\(String(format: "%.2f", seconds))",
                ])
        }
    }
}
