import HearClearModel
import HearClearStore

/// Devices: registering them (v1's `user/create`), and the admin's acts on them, which change
/// every aggregate they are in (docs/ARCHITECTURE.md, "Devices and calibration").
public struct DeviceDirectory: Sendable {
    let devices: DeviceRepository
    let administration: DeviceAdministration

    public init(devices: DeviceRepository, administration: DeviceAdministration) {
        self.devices = devices
        self.administration = administration
    }

    public func exists(clientID: String) async throws -> Bool {
        try await devices.exists(clientID: clientID)
    }

    /// Records the device (or refreshes when it was last seen); returns its key.
    @discardableResult
    public func register(clientID: String, model: String?) async throws -> Int64 {
        try await devices.register(clientID: clientID, model: model)
    }

    /// Excludes (or, with `excluded: false`, includes again) the device whose key or whole client
    /// id is `reference`; its venues are queued for re-judgement in the same transaction.
    public func setExcluded(_ reference: String, excluded: Bool, note: String? = nil) async throws
        -> DeviceAdministration.Change
    {
        try await administration.setExcluded(reference, excluded: excluded, note: note)
    }

    /// Devices, most recently seen first, as admins see them (ids shortened, bias against the crowd).
    public func reports(excludedOnly: Bool = false, limit: Int = 100) async throws -> [DeviceReport] {
        try await administration.list(excludedOnly: excludedOnly, limit: limit).map(DeviceReport.init)
    }
}
