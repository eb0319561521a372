import HearClearEngine
import HearClearModel
import Logging
import ServiceLifecycle

/// Keeps this instance's ``ReadCache`` and ``SearchIndex`` true: LISTENs on ``ReadChange/channel``
/// (on a connection of its own, to the primary) and drops exactly what each notification names
/// (the index reads those venues again). While it is not listening — before the first LISTEN, and
/// from a lost connection until it listens again — the cache is empty and answers nothing, and
/// the index is stale, so reads and searches go to the database; each time it listens the index
/// loads again.
struct ReadCacheListener: Service {
    let cache: ReadCache
    let index: SearchIndex
    let changes: ReadChangeFeed
    let gate: StartupGate
    let outage: DatabaseOutage
    let logger: Logger
    /// Wait before listening again after the connection was lost.
    var retryDelay: Duration = .seconds(1)

    func run() async throws {
        // A start that fails before the schema is ready ends here, and so does a shutdown that
        // comes first: this service stops before the worker, whose shutdown abandons the gate,
        // so waiting on for the gate would wait for ever.
        guard await cancelWhenGracefulShutdown({ await gate.wait() }) else { return }
        await cancelWhenGracefulShutdown {
            await changes.listen(retryDelay: retryDelay) {
                cache.setListening(true)
                index.listening()
                // Listening again after a loss: the database is back.
                outage.answered(logger: logger)
                logger.debug("read cache listening")
            } notified: { change in
                cache.invalidate(change)
                index.notified(change)
            } lost: { error in
                cache.setListening(false)
                index.lost()
                // During an outage this repeats every retry: told once, with the outage (a lost
                // connection alone is not an outage: the gate waits for a failed request).
                if outage.isDown {
                    logger.debug("read cache LISTEN lost while the database is away")
                    return
                }
                logger.warning(
                    "read cache LISTEN lost; serving reads from the database until it listens again",
                    metadata: ["error": "\(error.map { "\($0)" } ?? "the notifications ended")"])
            }
        }
        cache.setListening(false)
        index.lost()
    }
}
