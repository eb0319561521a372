import Foundation
import HearClearModel
import HearClearStore
import Logging
import PostgresNIO

/// A phone's rights over its data (docs/PRIVACY.md): access to everything stored about it, and
/// erasure. The device id, which only the phone holds, is the proof; it is keyed here
/// (``DeviceKey``) and never logged.
public struct DevicePrivacy: Sendable {
    let erasure: DeviceErasure
    let checkins: CheckinRepository
    let reports: ReportRepository
    let audit: AdminAuditLog
    let key: DeviceKey
    let logger: Logger

    /// Everything stored about one device.
    public struct Data: Sendable {
        public var device: StoredDevice
        /// Its check-ins, samples and judgements, oldest first.
        public var checkins: [StoredCheckin]
        /// Its reports of wrong data, oldest first.
        public var reports: [StoredReport]
    }

    init(client: PostgresClient, checkins: CheckinRepository, key: DeviceKey, logger: Logger) {
        erasure = DeviceErasure(client: client, logger: logger)
        self.checkins = checkins
        reports = ReportRepository(client: client, logger: logger)
        audit = AdminAuditLog(client: client, logger: logger)
        self.key = key
        self.logger = logger
    }

    /// What is stored about the device `deviceID` (as the phone sends it); nil when nothing is.
    public func data(deviceID: String) async throws -> Data? {
        let keyed = key.keyed(deviceID)
        guard let device = try await erasure.device(keyedID: keyed) else { return nil }
        async let checkins = checkins.checkins(ofDevice: device.key)
        async let reports = reports.reports(ofDevice: keyed)
        return Data(device: device, checkins: try await checkins, reports: try await reports)
    }

    /// Erases the device `deviceID` (as the phone sends it) and everything naming it, queues its
    /// venues to be judged again without it, and records the erasure in the admin's audit log
    /// (counts only, no id) as done `by` ("phone" or "operator"). nil when there is no such device.
    public func erase(deviceID: String, by: String) async throws -> DeviceErasureSummary? {
        guard let summary = try await erasure.erase(keyedID: key.keyed(deviceID)) else { return nil }
        let detail =
            "\(summary.checkins) check-ins, \(summary.reports) reports, calibration \(summary.calibration ? "yes" : "no"), \(summary.venues) venues queued"
        try await audit.record(username: by, action: "device erased", detail: detail)
        logger.notice(
            "device erased",
            metadata: [
                "by": "\(by)", "checkins": "\(summary.checkins)", "reports": "\(summary.reports)",
                "venues": "\(summary.venues)",
            ])
        return summary
    }
}
