import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// Whole months of check-ins (`checkins_YYYY_MM`, docs/ARCHITECTURE.md, "Check-ins by month"):
/// what each holds, and the retention that drops the old ones with everything that names their
/// check-ins (`hearclear months`).
///
/// A month may be dropped once it can no longer receive a check-in, and is older than the months
/// kept: it ended more than ``CheckinWindow/maxAgeSeconds`` (14 days) ago, and it is before the
/// current UTC month's `keepMonths` predecessors.
public struct CheckinMonths: Sendable {
    /// The months kept besides the current one unless the operator says otherwise (`--keep-months`):
    /// three, so about 90 days and more stay, beyond the crowd calibration's 60-day half-life and
    /// every window the judgement looks back over; a typo in a year cannot take the recent months.
    public static let defaultKeepMonths = 3

    /// How often a drop that gave way to a worker or a reader (a deadlock, a lock not had in time)
    /// is tried again before its error is thrown.
    static let attempts = 3

    /// A month and whether ``drop(before:now:keepMonths:by:)`` would take it now.
    public struct Entry: Sendable, Equatable {
        public var month: CheckinMonth
        public var mayDrop: Bool

        /// A month and whether it may be dropped now.
        public init(month: CheckinMonth, mayDrop: Bool) {
            self.month = month
            self.mayDrop = mayDrop
        }
    }

    /// Why a drop was refused (nothing was changed).
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// `before` is later than the latest month that may be given now (`latest`).
        case tooRecent(before: UTCMonth, latest: UTCMonth, keepMonths: Int)
        /// A negative `keepMonths`.
        case invalidKeepMonths(Int)

        public var description: String {
            switch self {
            case .tooRecent(let before, let latest, let keepMonths):
                "--before \(before) would drop months that must be kept: check-ins up to "
                    + "\(CheckinWindow.maxAgeDays) days old are still accepted, and --keep-months \(keepMonths) "
                    + "keeps the current month and the \(keepMonths) before it. The latest month --before may "
                    + "name now is \(latest) (it drops every month before \(latest))."
            case .invalidKeepMonths(let count):
                "--keep-months must be 0 or more, not \(count)."
            }
        }
    }

    let repository: CheckinMonthRepository
    let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        repository = CheckinMonthRepository(client: client, logger: logger)
        self.logger = logger
    }

    /// The latest month `--before` may name at `now`: every month before it ended at least
    /// ``CheckinWindow/maxAgeSeconds`` ago and is older than the `keepMonths` kept.
    public static func latestBefore(now: Date, keepMonths: Int) -> UTCMonth {
        let byWindow = UTCMonth(containing: now.addingTimeInterval(-CheckinWindow.maxAgeSeconds))
        let byFloor = UTCMonth(containing: now).adding(months: -max(0, keepMonths))
        return min(byWindow, byFloor)
    }

    /// Every month partition, oldest first, and whether it may be dropped at `now`.
    public func list(now: Date = Date(), keepMonths: Int = defaultKeepMonths) async throws -> [Entry] {
        let latest = Self.latestBefore(now: now, keepMonths: keepMonths)
        return try await repository.months().map { Entry(month: $0, mayDrop: $0.month < latest) }
    }

    /// The months ``drop(before:now:keepMonths:by:)`` would drop, oldest first, as they are now;
    /// changes nothing. Throws ``Refusal`` as the drop would.
    public func plan(before: UTCMonth, now: Date = Date(), keepMonths: Int = defaultKeepMonths) async throws
        -> [CheckinMonth]
    {
        try Self.check(before: before, now: now, keepMonths: keepMonths)
        return try await repository.months().filter { $0.month < before }
    }

    /// Drops every month partition before `before`, oldest first, each in a transaction of its
    /// own with everything that names its check-ins (``CheckinMonthRepository/drop(_:by:lockTimeout:)``);
    /// its venues are queued to be judged again without them, and the admin audit log records
    /// each month (counts only) as done `by`. Refuses (``Refusal``, nothing changed) a `before`
    /// later than ``latestBefore(now:keepMonths:)``. An empty answer: no month had a partition.
    public func drop(before: UTCMonth, now: Date = Date(), keepMonths: Int = defaultKeepMonths, by: String)
        async throws -> [CheckinMonthDrop]
    {
        let months = try await plan(before: before, now: now, keepMonths: keepMonths)
        var dropped: [CheckinMonthDrop] = []
        for month in months {
            var attempt = 1
            while true {
                do {
                    if let drop = try await repository.drop(month.month, by: by) {
                        dropped.append(drop)
                        logger.notice(
                            "check-in month dropped",
                            metadata: [
                                "month": "\(drop.month)", "checkins": "\(drop.checkins)", "venues": "\(drop.venues)",
                                "bytes": "\(drop.bytes)", "by": "\(by)",
                            ])
                    }
                    break
                } catch  where CheckinMonthRepository.isLockConflict(error) && attempt < Self.attempts {
                    logger.warning(
                        "check-in month drop gave way to another transaction; trying again",
                        metadata: [
                            "month": "\(month.month)", "attempt": "\(attempt)", "error": "\(String(reflecting: error))",
                        ])
                    attempt += 1
                    try await Task.sleep(for: .seconds(attempt))
                }
            }
        }
        return dropped
    }

    static func check(before: UTCMonth, now: Date, keepMonths: Int) throws {
        guard keepMonths >= 0 else { throw Refusal.invalidKeepMonths(keepMonths) }
        let latest = latestBefore(now: now, keepMonths: keepMonths)
        guard before <= latest else { throw Refusal.tooRecent(before: before, latest: latest, keepMonths: keepMonths) }
    }
}
