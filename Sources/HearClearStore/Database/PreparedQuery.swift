import PostgresNIO

/// The text of a statement whose values are all parameters, so that it can be prepared once a
/// connection: PostgreSQL then parses and analyses it once per connection instead of once per
/// use. Built once from sample values (only the text matters).
protocol QueryShape: Sendable {
    static var sql: String { get }
}

extension QueryShape {
    /// The prepared statement's name on each connection.
    static var name: String { "hearclear_\(Self.self)" }
}

/// A query of `Shape` as a prepared statement: `Shape.sql`, with this query's values as its
/// parameters.
struct PreparedQuery<Shape: QueryShape>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var sql: String { Shape.sql }
    static var name: String { Shape.name }
    let query: PostgresQuery

    init(_ query: PostgresQuery) {
        assert(query.sql == Shape.sql, "a prepared query's text must not depend on its values")
        self.query = query
    }

    func makeBindings() -> PostgresBindings { query.binds }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
