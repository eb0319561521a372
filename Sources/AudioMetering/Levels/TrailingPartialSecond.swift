/// What happened to audio after the last whole second.
///
/// Rule: a trailing part of at least half a second is metered as one more (shorter) sample;
/// anything shorter is dropped, because too few frames make a poor per-second level.
public enum TrailingPartialSecond: Sendable, Equatable {
    /// The file holds a whole number of seconds.
    case none
    /// Metered as the last sample, over its own length.
    case included(seconds: Double)
    /// Shorter than `minimumIncludedSeconds`, not metered.
    case dropped(seconds: Double)

    public static let minimumIncludedSeconds = 0.5
}
