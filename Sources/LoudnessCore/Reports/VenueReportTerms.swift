/// How a venue felt to someone there, against what the server showed for that hour
/// (docs/ARCHITECTURE.md, "Reports"). Raw values are the wire's and the database's.
public enum ReportFeeling: String, Sendable, CaseIterable {
    case quieter
    case louder
    case aboutRight = "about right"
}

/// Where a report stands: `open` until an admin resolves it (acted on) or dismisses it.
public enum ReportStatus: String, Sendable, CaseIterable {
    case open, resolved, dismissed
}

/// When reports put a cell up for review.
public enum ReportReview {
    /// Open "quieter"/"louder" reports from this many different devices mark their cell for
    /// review on the admin's dashboard. One person can be wrong (a seat by the speaker, ears
    /// that differ); two independent people disputing the same hour is worth a look. A cell's
    /// estimate rests on a few devices (`high` confidence needs 3), so two dissenters are a real
    /// share of its evidence. Devices, not reports: one phone sending five is still one voice.
    public static let minimumDevices = 2
}
