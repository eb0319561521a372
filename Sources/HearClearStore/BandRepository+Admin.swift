import Foundation
import Logging
import PostgresNIO

extension BandRepository {
    /// Replaces every band at once (validate them first with `LoudnessCore.Bands`). Readers label
    /// with the bands of the moment, so the change shows in the next response of v1, v2 and /farmer.
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

/// How many stored cells would get another label under other bands.
public struct BandChangePreview: Sendable, Equatable {
    public struct Transition: Sendable, Equatable {
        public var from: String
        public var to: String
        public var cells: Int
    }

    public var totalCells: Int
    public var changedCells: Int
    /// Label changes, most cells first.
    public var transitions: [Transition]
}

extension BandRepository {
    /// Labels every cell under `current` and `proposed` bands and counts the differences, in one
    /// pass over `loudness_cells` in the database. A cell's label is that of its calibrated level
    /// (model-corrected dBFS + `referenceOffsetDB`) rounded half away from zero to 0.1 dB, as v1,
    /// v2 and the admin report it; `width_bucket` puts a level equal to a bound in the band above,
    /// as `Bands` does.
    public func previewChange(from current: [StoredBand], to proposed: [StoredBand], referenceOffsetDB: Double)
        async throws -> BandChangePreview
    {
        func bounds(_ bands: [StoredBand]) -> [Double] {
            let finite = bands.compactMap(\.belowDB)
            return finite.isEmpty ? [.infinity] : finite
        }
        let rows = try await client.query(
            """
            WITH labelled AS (
                SELECT (\(current.map(\.label))::text[])[width_bucket(r.level, \(bounds(current))::float8[]) + 1] AS before,
                       (\(proposed.map(\.label))::text[])[width_bucket(r.level, \(bounds(proposed))::float8[]) + 1] AS after
                FROM loudness_cells c
                CROSS JOIN LATERAL (SELECT abs((c.level_dbfs::float8 + \(referenceOffsetDB)) * 10) AS tenths,
                                           sign(c.level_dbfs::float8 + \(referenceOffsetDB)) AS sign) t
                CROSS JOIN LATERAL (
                    SELECT t.sign * (CASE WHEN t.tenths - floor(t.tenths) >= 0.5 THEN ceil(t.tenths)
                                          ELSE floor(t.tenths) END) / 10 AS level) r)
            SELECT before, after, count(*) FROM labelled GROUP BY before, after ORDER BY count(*) DESC, before, after
            """,
            logger: logger
        )
        var preview = BandChangePreview(totalCells: 0, changedCells: 0, transitions: [])
        for try await (before, after, count) in rows.decode((String?, String?, Int).self) {
            preview.totalCells += count
            guard before != after else { continue }
            preview.changedCells += count
            preview.transitions.append(.init(from: before ?? "?", to: after ?? "?", cells: count))
        }
        return preview
    }
}
