import HearClearModel
import HearClearStore

/// What the judgement and the crowd fit decided about trust, for the admin and the simulator's
/// evaluation (docs/ARCHITECTURE.md, "Venues that change", "Devices that earn trust"). Device ids
/// are taken as the phones send them and keyed here (``DeviceKey``); they are never answered.
public struct TrustDirectory: Sendable {
    let repository: TrustRepository
    let key: DeviceKey

    init(repository: TrustRepository, key: DeviceKey) {
        self.repository = repository
        self.key = key
    }

    /// The standing of the devices whose ids (as the phones send them) are `clientIDs`, by those
    /// ids; a device never seen is absent.
    public func standings(clientIDs: [String]) async throws -> [String: DeviceStandingRecord] {
        let keyed = Dictionary(clientIDs.map { (key.keyed($0), $0) }, uniquingKeysWith: { first, _ in first })
        let found = try await repository.standings(keyedClientIDs: Array(keyed.keys))
        var result: [String: DeviceStandingRecord] = [:]
        for (keyedID, standing) in found { if let clientID = keyed[keyedID] { result[clientID] = standing } }
        return result
    }

    /// The changes of the venues with these external ids, oldest first.
    public func changes(venueExternalIDs: [String]) async throws -> [String: [StoredVenueChange]] {
        try await repository.changes(externalIDs: venueExternalIDs)
    }
}
