import Foundation
import HearClearModel
import Logging
import PostgresNIO

extension BandRepository {
    /// Replaces every band at once (validate them first with `LoudnessCore.Bands`). Readers label
    /// with the bands of the moment, so the change shows in the next response of v1, v2 and /farmer
    /// (a trigger tells every instance to drop its cached answers when the change commits).
    public func replace(with bands: [StoredBand]) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("DELETE FROM bands", logger: logger)
            try await connection.query(
                """
                INSERT INTO bands (position, label, below_db)
                SELECT position, label, NULLIF(below, 'NaN'::real)
                FROM unnest(\((0..<bands.count).map { Int16($0) })::smallint[], \(bands.map(\.label))::text[],
                            \(bands.map { Float($0.belowDB ?? .nan) })::real[]) AS u(position, label, below)
                """,
                logger: logger
            )
        }
    }
}

extension BandRepository {
    /// How many cells have each stored level (model-corrected dBFS): what a preview of a band
    /// change labels, in one pass over `loudness_cells`.
    public func cellLevelCounts() async throws -> [(levelDBFS: Double, cells: Int)] {
        let rows = try await client.query(
            "SELECT level_dbfs::float8, count(*) FROM loudness_cells GROUP BY level_dbfs", logger: logger)
        var counts: [(levelDBFS: Double, cells: Int)] = []
        for try await (level, cells) in rows.decode((Double, Int).self) { counts.append((level, cells)) }
        return counts
    }
}
