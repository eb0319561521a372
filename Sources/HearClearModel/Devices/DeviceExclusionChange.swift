/// What excluding a device (or including it again) did.
public enum DeviceExclusionChange: Sendable, Equatable {
    /// The device changed state; `venues` were queued for recomputation.
    case changed(key: Int64, venues: Int)
    /// The device was already in that state; nothing was queued.
    case unchanged(key: Int64)
    /// No device has that key or client id.
    case notFound
}
