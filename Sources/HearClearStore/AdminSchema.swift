/// Column expressions the admin's reads share, over `checkins c` joined with `devices d`.
enum AdminSchema {
    /// The device model's calibration offset; 0 until the engine's offsets table is merged.
    static let modelOffsetColumn = "0::float8"
    /// The admin's standing decision on the check-in, if any.
    static let overrideColumn = "(SELECT o.decision FROM checkin_overrides o WHERE o.checkin_id = c.id)"
}
