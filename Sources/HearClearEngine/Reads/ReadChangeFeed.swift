import HearClearModel
import HearClearStore
import PostgresNIO

/// The read changes of this engine's database (``ReadChange``), heard on a connection of its own
/// to the primary: what keeps an instance's cached answers true (docs/ARCHITECTURE.md, "Reads and
/// their cache").
public struct ReadChangeFeed: Sendable {
    let client: PostgresClient

    /// LISTENs until cancelled, again `retryDelay` after a lost connection. `listening` is told
    /// each time it listens (again); `notified` each change, a payload this version does not
    /// know as ``ReadChange/bands`` (which drops everything); `lost` each loss, with its error.
    public func listen(
        retryDelay: Duration = .seconds(1), listening: () -> Void, notified: (ReadChange) -> Void,
        lost: ((any Error)?) -> Void
    ) async {
        await client.listenContinuously(on: ReadChange.channel, retryDelay: retryDelay) {
            listening()
        } notified: { payload in
            notified(ReadChange(payload: payload) ?? .bands)
        } lost: { error in
            lost(error)
        }
    }
}

extension Engine {
    /// The read changes of this engine's database.
    public var readChanges: ReadChangeFeed { ReadChangeFeed(client: client) }
}
