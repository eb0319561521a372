import HearClearModel
import LoudnessCore

extension CheckinStatus {
    /// A status as stored (its raw value); a value no version of the engine writes is an error.
    init(stored: String) throws {
        guard let status = CheckinStatus(rawValue: stored) else {
            throw StoreError.unexpected("unknown check-in status '\(stored)' in the database")
        }
        self = status
    }
}
