/// The times a check-in's samples (and a report's `at`) may be at when the API receives them
/// (docs/ARCHITECTURE.md, "API v2 rules"): a phone's clock may be a little ahead, and a check-in is
/// about a recent visit. The month retention (`hearclear months drop`) never drops a month that
/// can still receive check-ins under ``maxAgeSeconds``.
public enum CheckinWindow {
    /// 15 minutes ahead of the server's clock.
    public static let maxFutureSeconds: Double = 15 * 60
    /// 14 days back.
    public static let maxAgeSeconds: Double = 14 * 86_400
    /// ``maxAgeSeconds`` in days, for messages.
    public static let maxAgeDays = 14
}
