import Logging
import PostgresNIO

/// Work in code that a migration file needs done first, for what SQL alone cannot do without a
/// long lock (``SampleArraysCompaction``, before 0018; ``CheckinsByMonthCopy``, before 0021;
/// ``NameKeysFill``, before 0027). Both
/// parts must be idempotent: a run stopped half-way is run again whole.
public struct MigrationPreparation: Sendable {
    public typealias Step = @Sendable (PostgresConnection, Logger) async throws -> Void

    /// Run before the file's transaction, with no transaction open: it opens its own, short ones.
    let before: Step
    /// Run in the file's transaction, before its statements.
    let within: Step

    /// Whole milliseconds since `start`, for a preparation's log line.
    static func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = (ContinuousClock.now - start).components
        return elapsed.seconds * 1_000 + elapsed.attoseconds / 1_000_000_000_000_000
    }

    /// The preparations, by the name of the file they prepare.
    static let byFile: [String: MigrationPreparation] = [
        "0018_sample_arrays_dropped.sql": SampleArraysCompaction.preparation,
        "0021_checkins_by_month_swapped.sql": CheckinsByMonthCopy.preparation,
        "0027_name_words.sql": NameKeysFill.preparation,
    ]
}
