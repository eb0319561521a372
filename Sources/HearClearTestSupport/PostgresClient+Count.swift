import PostgresNIO

extension PostgresClient {
    /// `SELECT count(*) FROM table WHERE condition`; -1 when no row came back.
    public func count(_ table: String, where condition: String = "true") async throws -> Int {
        let rows = try await query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table) WHERE \(condition)"))
        for try await count in rows.decode(Int.self) { return count }
        return -1
    }

    /// The one text column of every row `sql` answers, in its order.
    public func texts(_ sql: String) async throws -> [String] {
        var texts: [String] = []
        for try await text in try await query(PostgresQuery(unsafeSQL: sql)).decode(String.self) { texts.append(text) }
        return texts
    }
}
