import HearClearModel
import HearClearStore

/// A check-in as `GET /api/v2/checkins/{id}` shows it: as stored, with its level in calibrated dB
/// and that level's label once it has been judged.
public struct JudgedCheckin: Sendable, Equatable {
    public var checkin: StoredCheckin
    /// `nil` while pending or when no second was kept.
    public var levelDB: Double?
    public var label: String?
}
