import Foundation
import Logging
import PostgresNIO

/// Rewrites the per-second arrays of check-ins stored before migration 0017 into `samples`
/// (``SampleCodec``), before 0018 drops the arrays: the migration runner's preparation of 0018.
///
/// In batches of ``batchSize`` check-ins in id order, each batch its own transaction, so that ingest
/// and the worker never wait on more than one batch's rows. Each rewritten row gets NULL arrays,
/// so its new version holds the samples only once. Then, in 0018's transaction, with the table
/// locked against writes, the check-ins a server of before 0017 wrote meanwhile: those received
/// since an hour before the batches began (no ingest transaction lasts that long), found through
/// the `received_at` index, so the lock lasts milliseconds however large the table.
enum SampleArraysCompaction {
    static let batchSize = 1_000
    /// The session setting in which the batches leave when they began, for the pass under lock.
    static let startedSetting = "hearclear.samples_compaction_started"

    static let preparation = MigrationPreparation(
        before: { connection, logger in
            try await connection.query("SELECT set_config(\(startedSetting), now()::text, false)", logger: logger)
            var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            var total = (checkins: 0, samples: 0)
            let started = ContinuousClock.now
            while true {
                try await connection.query("BEGIN", logger: logger)
                do {
                    let batch = try await rewrite(
                        """
                        \(unescaped: selection) WHERE id > \(after) AND samples IS NULL AND samples_removed_at IS NULL
                        ORDER BY id LIMIT \(batchSize) FOR UPDATE
                        """, on: connection, logger: logger)
                    try await connection.query("COMMIT", logger: logger)
                    guard let last = batch.last else { break }
                    after = last
                    total.checkins += batch.checkins
                    total.samples += batch.samples
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
            logger.info(
                "check-ins' samples compacted",
                metadata: [
                    "checkins": "\(total.checkins)", "samples": "\(total.samples)",
                    "milliseconds": "\(MigrationPreparation.milliseconds(since: started))",
                ])
        },
        within: { connection, logger in
            let started = ContinuousClock.now
            try await connection.query("LOCK TABLE checkins IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            // Without the batches' start in this session (never, from the runner): every row, one scan.
            let late = try await connection.query(
                """
                SELECT id FROM checkins
                WHERE received_at >= coalesce(
                        nullif(current_setting(\(startedSetting), true), '')::timestamptz - interval '1 hour',
                        '-infinity')
                  AND samples IS NULL AND samples_removed_at IS NULL
                """, logger: logger
            ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
            var start = 0
            while start < late.count {
                let ids = Array(late[start..<min(start + batchSize, late.count)])
                _ = try await rewrite(
                    "\(unescaped: selection) WHERE id = ANY(\(ids)) FOR UPDATE", on: connection, logger: logger)
                start += batchSize
            }
            logger.info(
                "late check-ins' samples compacted under lock",
                metadata: [
                    "checkins": "\(late.count)", "milliseconds": "\(MigrationPreparation.milliseconds(since: started))",
                ])
        })

    /// The columns ``rewrite(_:on:logger:)`` reads.
    static let selection =
        "SELECT id, offsets_s, average_dbfs, peak_dbfs, lceq_ddb, band_indexes, bands_ddb FROM checkins"

    /// Rewrites the check-ins `select` (``selection`` and a condition) gives; returns how many,
    /// their samples and the last id (nil when there were none).
    static func rewrite(_ select: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws
        -> (checkins: Int, samples: Int, last: UUID?)
    {
        let rows = try await connection.query(select, logger: logger)
        var ids: [UUID] = []
        var encoded: [ByteBuffer] = []
        var last: UUID?
        var samples = 0
        for try await row in rows {
            var c = ColumnReader(row)
            let id: UUID = try c.next()
            last = id
            guard let offsets = try c.next([Int32]?.self), let average = try c.next([Float]?.self),
                let peak = try c.next([Float]?.self)
            else { continue }
            let series = SampleSeries(
                offsetsSeconds: offsets, averageDBFS: average, peakDBFS: peak, lceqDdB: try c.next(),
                bandIndexes: try c.next(), bandsDdB: try c.next())
            ids.append(id)
            encoded.append(try series.column)
            samples += offsets.count
        }
        guard !ids.isEmpty else { return (0, 0, last) }
        try await connection.query(
            """
            UPDATE checkins c
            SET samples = u.samples, offsets_s = NULL, average_dbfs = NULL, peak_dbfs = NULL, lceq_ddb = NULL,
                band_indexes = NULL, bands_ddb = NULL
            FROM unnest(\(ids)::uuid[], \(encoded)::bytea[]) AS u (id, samples)
            WHERE c.id = u.id
            """, logger: logger)
        return (ids.count, samples, last)
    }
}
