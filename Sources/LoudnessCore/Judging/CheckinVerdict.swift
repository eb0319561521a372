/// The outcome of cleaning one check-in.
public enum CheckinVerdict: Sendable, Equatable {
    /// Enough valid seconds: the check-in goes on to per-hour statistics and cell estimation.
    case accepted
    /// Not usable; the server stores it with status `excluded` and this reason.
    case excluded(CheckinExclusion)

    /// `isAccepted`: true for ``accepted``.
    public var isAccepted: Bool { self == .accepted }
}
