import HearClearModel
import PostgresNIO

extension PostgresClient {
    /// LISTENs on `channel`, on a connection of its own, until the task is cancelled; when the
    /// LISTEN is lost it listens again after `retryDelay`. `listening` runs each time the LISTEN is
    /// in place (anything sent before was missed), `notified` for each payload, and `lost` each
    /// time it ends while not cancelled, with its error (`nil` when the notifications just ended).
    public func listenContinuously(
        on channel: String, retryDelay: Duration = .seconds(1), listening: () -> Void, notified: (String) -> Void,
        lost: ((any Error)?) -> Void
    ) async {
        while !Task.isCancelled {
            var failure: (any Error)?
            do {
                try await withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        listening()
                        for try await notification in notifications { notified(notification.payload) }
                    }
                }
            } catch {
                failure = error
            }
            if Task.isCancelled { return }
            lost(failure)
            try? await Task.sleep(for: retryDelay)
        }
    }
}
