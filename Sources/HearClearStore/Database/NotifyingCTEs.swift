/// Common table expressions that NOTIFY (and perhaps write) for each row of an earlier one, with
/// what a statement must do for them to act carried in the value, not in a name to know: write
/// ``definitions`` in its `WITH` list after the CTE they read, and evaluate ``sentCount``.
struct NotifyingCTEs {
    /// The definitions, for the statement's `WITH` list.
    let definitions: String
    /// An expression the statement must evaluate (in its `SELECT` list or `WHERE`): PostgreSQL
    /// runs a `SELECT` CTE only when it is read, so the notifications are sent only then. Its
    /// value is the number of rows notified for.
    let sentCount: String
}
