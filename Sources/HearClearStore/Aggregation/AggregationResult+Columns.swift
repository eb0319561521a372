import Foundation
import HearClearModel
import LoudnessCore

extension AggregationResult.Hour {
    /// The `checkin_hours` columns, as `h.…`, in the order ``init(reading:)`` reads them.
    static let columns = """
        h.checkin_id, h.device_id, h.weekday, h.hour, h.leq_dbfs, h.l10_dbfs, h.l50_dbfs, h.l90_dbfs,
        h.max_peak_dbfs, h.valid_seconds, h.model_offset_db, h.counted, h.outlier, h.modified_z, h.residual_db,
        h.other_devices, h.character_class_seconds, h.character_la_ddb, h.character_lc_minus_la_ddb, h.character_phone_seconds
        """

    /// A row from ``columns``.
    init(reading columns: inout ColumnReader) throws {
        try self.init(readingLevels: &columns)
        let classes: [Int16]? = try columns.next()
        let levels: [Int16]? = try columns.next()
        let differences: [Int16]? = try columns.next()
        let phoneSeconds: Int32? = try columns.next()
        if let classes, let levels {
            character = PieceCharacter(
                classSeconds: classes.map(Int.init), levelsDdB: levels, lcMinusLaDdB: differences ?? [],
                phoneSeconds: Int(phoneSeconds ?? 0))
        }
    }

    private init(readingLevels columns: inout ColumnReader) throws {
        self.init(
            checkinID: try columns.next(), deviceKey: try columns.next(), weekday: Int(try columns.next(Int16.self)),
            hour: Int(try columns.next(Int16.self)), leqDBFS: Double(try columns.next(Float.self)),
            l10DBFS: Double(try columns.next(Float.self)), l50DBFS: Double(try columns.next(Float.self)),
            l90DBFS: Double(try columns.next(Float.self)), maxPeakDBFS: Double(try columns.next(Float.self)),
            validSeconds: Int(try columns.next(Int32.self)), modelOffsetDB: Double(try columns.next(Float.self)),
            counted: try columns.next(), outlier: try columns.next(),
            modifiedZ: try columns.next(Float?.self).map(Double.init),
            residualDB: try columns.next(Float?.self).map(Double.init), otherDevices: Int(try columns.next(Int32.self)))
    }

    /// `{1,2,3}`: an array as PostgreSQL reads it from text (for arrays of arrays, which
    /// PostgresNIO cannot bind).
    static func arrayLiteral(_ values: [some BinaryInteger]) -> String {
        "{" + values.map { String($0) }.joined(separator: ",") + "}"
    }

}
