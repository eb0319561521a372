import Foundation
import HearClearModel
import Logging
import Metrics
import PostgresNIO
import Synchronization

/// Check-ins written together (docs/ARCHITECTURE.md, "Check-ins written in groups"): the requests
/// whose check-ins are ready at once share one ``IngestStatement`` and so one transaction, one
/// round trip and one commit. Each request is answered only once its own row is committed.
///
/// No task of its own: the first request to arrive leads. It writes at once when no other group is
/// being written (a lone check-in never waits); while one is, it waits up to `window` for company,
/// then takes every waiting check-in (at most `maxRows`, each id and each device once) and writes
/// them, and the requests it took wait for its answer. A check-in still waiting then leads the next
/// group. When one row breaks a group's statement (a month without its partition, a constraint),
/// its rows are written one by one, so that row fails only its own request.
final class IngestGroups: Sendable {
    /// What a waiting request is told: its check-in's outcome, or to lead the next group.
    private enum Turn: Sendable {
        case written(Result<CheckinReceipt?, any Error>)
        case lead
    }

    private struct Waiting: Sendable {
        let row: IngestRow
        /// nil for the leader's own row: the leader is not waiting on it.
        var continuation: CheckedContinuation<Turn, Never>?
    }

    private struct State: Sendable {
        /// In arrival order; the first is the leader's own when `led`.
        var waiting: [Waiting] = []
        /// Whether a request leads the waiting ones (false exactly when none waits).
        var led = false
        /// Groups being written now.
        var writing = 0
    }

    static let groups = Counter(label: "hearclear_ingest_groups_total")
    static let rows = Counter(label: "hearclear_ingest_group_rows_total")

    private let state = Mutex(State())
    let client: PostgresClient
    let logger: Logger
    let window: Duration
    let maxRows: Int

    init(client: PostgresClient, logger: Logger, window: Duration, maxRows: Int = 64) {
        precondition(window > .zero && maxRows > 1, "grouping needs a window and room for two")
        self.client = client
        self.logger = logger
        self.window = window
        self.maxRows = maxRows
    }

    /// Writes `row` in the next group: its receipt, or nil when its id was taken.
    func write(_ row: IngestRow) async throws -> CheckinReceipt? {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leads = state.withLock { state in
                state.waiting.append(Waiting(row: row, continuation: continuation))
                guard !state.led else { return false }
                state.led = true
                state.waiting[state.waiting.count - 1].continuation = nil
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .written(let result): return try result.get()
        case .lead: return try await lead(row.id).get()
        }
    }

    /// Takes a group (its own row first), hands the lead on to what is left, writes the group and
    /// answers its requests; its own outcome is returned.
    private func lead(_ own: UUID) async -> Result<CheckinReceipt?, any Error> {
        let busy = state.withLock { $0.writing > 0 && $0.waiting.count < maxRows }
        if busy { try? await Task.sleep(for: window) }
        let (group, next) = state.withLock { state -> ([Waiting], CheckedContinuation<Turn, Never>?) in
            var group: [Waiting] = []
            var left: [Waiting] = []
            var ids = Set<UUID>()
            var devices = Set<Int64>()
            for waiting in state.waiting {
                if group.count < maxRows, ids.insert(waiting.row.id).inserted,
                    devices.insert(waiting.row.deviceID).inserted
                {
                    group.append(waiting)
                } else {
                    left.append(waiting)
                }
            }
            state.waiting = left
            state.writing += 1
            guard !left.isEmpty else {
                state.led = false
                return (group, nil)
            }
            let next = state.waiting[0].continuation
            state.waiting[0].continuation = nil
            return (group, next)
        }
        next?.resume(returning: .lead)
        let outcomes = await write(group.map(\.row))
        state.withLock { $0.writing -= 1 }
        Self.groups.increment()
        Self.rows.increment(by: group.count)
        var ownOutcome: Result<CheckinReceipt?, any Error> = .success(nil)
        for (waiting, outcome) in zip(group, outcomes) {
            if let continuation = waiting.continuation {
                continuation.resume(returning: .written(outcome))
            } else {
                assert(waiting.row.id == own, "a group holds one leader's row")
                ownOutcome = outcome
            }
        }
        return ownOutcome
    }

    /// Whether `error` may be one row's doing (a data exception or a broken constraint, SQLSTATE
    /// classes 22 and 23: a month without its partition is 23514), so that the rest would be
    /// stored alone. A lost connection or a database going away fails every row at once.
    static func oneRowsFault(_ error: any Error) -> Bool {
        guard let state = (error as? PSQLError)?.sqlState else { return false }
        return state.hasPrefix("22") || state.hasPrefix("23")
    }

    /// The group in one statement; when one of its rows broke it, its rows one by one.
    private func write(_ rows: [IngestRow]) async -> [Result<CheckinReceipt?, any Error>] {
        do {
            let receipts = try await IngestStatement.run(rows, client: client, logger: logger)
            return rows.map { .success(receipts[$0.id]) }
        } catch {
            guard rows.count > 1, Self.oneRowsFault(error) else { return rows.map { _ in .failure(error) } }
            logger.debug(
                "a group of check-ins failed; writing its rows one by one",
                metadata: ["rows": "\(rows.count)", "error": "\(String(reflecting: error))"])
        }
        var outcomes: [Result<CheckinReceipt?, any Error>] = []
        for row in rows {
            do {
                let receipts = try await IngestStatement.run([row], client: client, logger: logger)
                outcomes.append(.success(receipts[row.id]))
            } catch {
                outcomes.append(.failure(error))
            }
        }
        return outcomes
    }
}
