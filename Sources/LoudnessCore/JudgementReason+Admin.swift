extension JudgementReason {
    /// An admin forced the check-in out of every cell (``VenueCheckin/exclusionReasons``).
    public static let adminExcluded = "admin_excluded"
    /// An admin forced the check-in in (``VenueCheckin/forcedInclusion``); it stays with status
    /// `included` so clients can tell.
    public static let adminIncluded = "admin_included"
}
