import Foundation
import LoudnessCore

/// A row of `venue_campaigns`: a coordinated campaign at a venue as a judgement found it
/// (docs/ARCHITECTURE.md, "Campaigns"), and what an admin decided.
public struct StoredCampaign: Sendable, Equatable {
    /// What became of it.
    public enum Status: String, Sendable, Equatable, Codable {
        case open, excluded, dismissed
    }

    public var id: Int64?
    public var venueID: Int64
    public var direction: Campaign.Direction
    /// Its devices' keys (`devices.id`).
    public var devices: [Int64]
    public var checkins: Int
    public var deviationDB: Double
    public var movesDB: Double
    public var wouldMoveDB: Double
    public var status: Status
    public var detectedAt: Date?
    public var updatedAt: Date?
    public var decidedAt: Date?
    public var decidedBy: String?

    public init(
        id: Int64? = nil, venueID: Int64, direction: Campaign.Direction, devices: [Int64], checkins: Int,
        deviationDB: Double, movesDB: Double, wouldMoveDB: Double, status: Status = .open, detectedAt: Date? = nil,
        updatedAt: Date? = nil, decidedAt: Date? = nil, decidedBy: String? = nil
    ) {
        self.id = id
        self.venueID = venueID
        self.direction = direction
        self.devices = devices
        self.checkins = checkins
        self.deviationDB = deviationDB
        self.movesDB = movesDB
        self.wouldMoveDB = wouldMoveDB
        self.status = status
        self.detectedAt = detectedAt
        self.updatedAt = updatedAt
        self.decidedAt = decidedAt
        self.decidedBy = decidedBy
    }

    /// The row a judgement's campaign is stored as (the judge names devices by their keys).
    public init(_ campaign: Campaign, venueID: Int64) {
        self.init(
            venueID: venueID, direction: campaign.direction,
            devices: campaign.devices.compactMap { Int64($0) }.sorted(),
            checkins: campaign.checkins.count, deviationDB: campaign.deviationDB, movesDB: campaign.movesDB,
            wouldMoveDB: campaign.wouldMoveDB)
    }

    /// The same finding: direction, devices and check-ins, and its figures to 0.1 dB.
    public func sameFinding(as other: StoredCampaign) -> Bool {
        func tenth(_ value: Double) -> Int { Int((value * 10).rounded()) }
        return direction == other.direction && devices == other.devices && checkins == other.checkins
            && tenth(deviationDB) == tenth(other.deviationDB) && tenth(movesDB) == tenth(other.movesDB)
            && tenth(wouldMoveDB) == tenth(other.wouldMoveDB)
    }
}
