/// What an admin's closing of a report did.
public enum ReportClosing: Sendable, Equatable {
    case closed(StoredReport)
    /// It was already resolved or dismissed: nothing changed.
    case alreadyClosed(StoredReport)
    case notFound
}
