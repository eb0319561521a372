import HearClearModel

/// Column expressions the admin's reads share, over `checkins c` joined with `devices d`.
enum AdminSchema {
    /// The device model's calibration offset (0 without one).
    static let modelOffsetColumn =
        "COALESCE((SELECT o.offset_db::float8 FROM device_model_offsets o WHERE o.model = d.model), 0)"
    /// The admin's standing decision on the check-in, if any.
    static let overrideColumn = "(SELECT o.decision FROM checkin_overrides o WHERE o.checkin_id = c.id)"
}
