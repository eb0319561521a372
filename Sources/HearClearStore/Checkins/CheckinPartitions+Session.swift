import PostgresNIO

extension CheckinPartitions {
    /// Session settings for the server's connections, sent at connection start.
    ///
    /// `constraint_exclusion = off`: with PostgreSQL's default (`partition`) the planner, for every
    /// statement on `checkins`, parses each remaining month's CHECK constraints again and tries to
    /// refute the statement with them, about 9 % of the database's CPU under ingest. Months are
    /// already pruned by their bounds (`enable_partition_pruning`, untouched), and no table here
    /// relies on inheritance or CHECKs to be skipped.
    public static let sessionParameters: [(String, String)] = [("constraint_exclusion", "off")]

    /// `configuration` with ``sessionParameters`` added.
    public static func configured(_ configuration: PostgresClient.Configuration) -> PostgresClient.Configuration {
        var configuration = configuration
        configuration.options.additionalStartupParameters += sessionParameters
        return configuration
    }
}
