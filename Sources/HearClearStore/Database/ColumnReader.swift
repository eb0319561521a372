import HearClearModel
import PostgresNIO

/// Reads a wide row column by column, in order.
///
/// Rows of 12 and more columns are read this way rather than as one tuple: decoding a
/// 16-element tuple (PostgresNIO's parameter-pack `decode`) crashed the Swift 6.3 runtime once
/// in a highly concurrent test run, inside generic metadata instantiation. Narrow reads avoid it.
public struct ColumnReader {
    private let cells: PostgresRandomAccessRow
    private var index = 0

    public init(_ row: PostgresRow) {
        cells = row.makeRandomAccess()
    }

    public mutating func next<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        defer { index += 1 }
        return try cells[index].decode(T.self)
    }

    /// Whether the next column is NULL (without moving past it).
    public func peekIsNull() -> Bool {
        cells[index].bytes == nil
    }
}
