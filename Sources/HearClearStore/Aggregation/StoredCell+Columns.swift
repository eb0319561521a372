import Foundation
import HearClearModel
import LoudnessCore

extension StoredCell {
    /// The `loudness_cells` columns, as `l.…`, in the order ``init(reading:)`` reads them.
    static let columns = """
        l.weekday, l.hour, l.level_dbfs, l.range_low_dbfs, l.range_high_dbfs, l.scale_db, l.checkins, l.devices,
        l.confidence, l.basis, l.updated_at
        """

    /// The character columns, as `l.…`, after ``columns``, in the order ``readCharacter(_:)`` reads them.
    static let characterColumns = """
        l.character_seconds, l.character_checkins, l.character_class_seconds, l.character_lc_minus_la_db,
        l.character_la90_dbfs, l.character_phone_seconds
        """

    /// Reads ``characterColumns`` into ``character``.
    mutating func readCharacter(_ columns: inout ColumnReader) throws {
        let seconds: Int32? = try columns.next()
        let checkins: Int32? = try columns.next()
        let classes: [Int32]? = try columns.next()
        let difference: Float? = try columns.next()
        let la90: Float? = try columns.next()
        let phoneSeconds: Int32? = try columns.next()
        guard let seconds, let checkins, let classes, let la90 else {
            character = nil
            return
        }
        character = CellCharacter(
            seconds: Int(seconds), checkins: Int(checkins), classSeconds: classes.map(Int.init),
            lcMinusLaDB: difference.map(Double.init), la90DBFS: Double(la90), phoneSeconds: Int(phoneSeconds ?? 0))
    }

    /// A cell from ``columns``.
    init(reading columns: inout ColumnReader) throws {
        self.init(
            weekday: Int(try columns.next(Int16.self)), hour: Int(try columns.next(Int16.self)),
            levelDBFS: Double(try columns.next(Float.self)), rangeLowDBFS: Double(try columns.next(Float.self)),
            rangeHighDBFS: Double(try columns.next(Float.self)), scaleDB: Double(try columns.next(Float.self)),
            checkins: Int(try columns.next(Int32.self)), devices: Int(try columns.next(Int32.self)),
            confidence: try columns.next(),
            basis: try columns.next(String?.self).map { raw in
                guard let basis = PatternEstimate.Basis(rawValue: raw) else {
                    throw StoreError.unexpected("unknown loudness_cells.basis '\(raw)'")
                }
                return basis
            }, updatedAt: try columns.next())
    }
}
