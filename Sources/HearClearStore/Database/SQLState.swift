import PostgresNIO

extension PSQLError {
    /// The SQLSTATE of an error the server reported (`40P01`, `23514`, …); nil for one it did not
    /// (a lost connection, a closed pool).
    var sqlState: String? { serverInfo?[.sqlState] }
}
