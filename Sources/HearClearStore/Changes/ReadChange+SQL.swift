import HearClearModel

extension ReadChange {
    /// The PostgreSQL channel of read changes (migrations 0006 and 0012 NOTIFY it too); the
    /// payload is ``ReadChange/payload``.
    public static let channel = "hearclear_reads"

    /// A common table expression that NOTIFYs a venue change for each venue key that `source`
    /// (an earlier CTE with a `venue_id` column) yields, once the statement evaluates its
    /// ``NotifyingCTEs/sentCount``.
    static func notifyingVenues(from source: String) -> NotifyingCTEs {
        let definitions = """
            read_changes AS (
                SELECT pg_notify('\(channel)', '\(venuePrefix)' || v.external_id) FROM \(source) s JOIN venues v ON v.id = s.venue_id)
            """
        return NotifyingCTEs(definitions: definitions, sentCount: "(SELECT count(*) FROM read_changes)")
    }
}
