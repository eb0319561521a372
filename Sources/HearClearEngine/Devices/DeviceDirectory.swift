import HearClearModel
import HearClearStore

/// Devices: registering them (v1's `user/create`), and the admin's acts on them, which change
/// every aggregate they are in (docs/ARCHITECTURE.md, "Devices and calibration").
public struct DeviceDirectory: Sendable {
    let devices: DeviceRepository
    let administration: DeviceAdministration
    /// Device ids are looked up and stored keyed (``DeviceKey``): the methods here take them as
    /// the phone sends them.
    let key: DeviceKey

    /// Within the package only, as the Store is (the engine's, and the tests' test support).
    package init(devices: DeviceRepository, administration: DeviceAdministration, key: DeviceKey) {
        self.devices = devices
        self.administration = administration
        self.key = key
    }

    /// The form a device id is stored, limited and shown (shortened) in.
    public func keyed(_ deviceID: String) -> String { key.keyed(deviceID) }

    /// Whether a device with this id (as the phone sends it) is registered.
    public func exists(clientID: String) async throws -> Bool {
        try await devices.exists(clientID: key.keyed(clientID))
    }

    /// Records the device (or refreshes when it was last seen); returns its key.
    @discardableResult
    public func register(clientID: String, model: String?) async throws -> Int64 {
        try await devices.register(clientID: key.keyed(clientID), model: model)
    }

    /// Excludes (or, with `excluded: false`, includes again) the device whose key or whole client
    /// id is `reference`; its venues are queued for re-judgement in the same transaction.
    public func setExcluded(_ reference: String, excluded: Bool, note: String? = nil) async throws
        -> DeviceExclusionChange
    {
        try await administration.setExcluded(reference, clientID: key.keyed(reference), excluded: excluded, note: note)
    }

    /// Devices, most recently seen first, as admins see them (ids shortened, bias against the crowd).
    public func reports(excludedOnly: Bool = false, limit: Int = 100) async throws -> [DeviceReport] {
        try await administration.list(excludedOnly: excludedOnly, limit: limit).map(DeviceReport.init)
    }
}
