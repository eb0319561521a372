import Foundation

/// A venue change in the admin's lists: the row with its venue, and the key its actions name it by
/// (`changed_at` in whole microseconds since 1970, exact where a `Date` is not).
public struct AdminVenueChangeRow: Sendable, Equatable {
    public var key: Int64
    public var venueID: Int64
    public var venueExternalID: String
    public var venueName: String
    public var change: StoredVenueChange

    public init(key: Int64, venueID: Int64, venueExternalID: String, venueName: String, change: StoredVenueChange) {
        self.key = key
        self.venueID = venueID
        self.venueExternalID = venueExternalID
        self.venueName = venueName
        self.change = change
    }
}

/// A campaign in the admin's list, with its venue.
public struct AdminCampaignRow: Sendable, Equatable {
    public var venueExternalID: String
    public var venueName: String
    public var campaign: StoredCampaign

    public init(venueExternalID: String, venueName: String, campaign: StoredCampaign) {
        self.venueExternalID = venueExternalID
        self.venueName = venueName
        self.campaign = campaign
    }
}

/// What an admin's decision on a campaign did.
public enum AdminCampaignDecision: Sendable, Equatable {
    /// Decided: its venue (and, excluding, its devices' venues) queued; `devices` newly excluded.
    case decided(venueID: Int64, devicesExcluded: Int, venuesQueued: Int)
    /// It was no longer open.
    case notOpen
    case notFound
}

/// The offsets in force at one check-in's time, piece by piece (docs/ARCHITECTURE.md, "Phones
/// that drift"): its model's (and the model's step), its model's for its OS version, its device's.
public struct AdminCheckinOffsets: Sendable, Equatable {
    public var model: String?
    public var os: String?
    /// The model's offset in force now, and before its step (`since`, nil without one).
    public var modelOffsetDB: Double?
    public var modelEarlierOffsetDB: Double?
    public var modelSince: Date?
    /// The model's offset for this OS version, where the crowd fitted one (it replaces the model's).
    public var osOffsetDB: Double?
    /// The device's own deviation now, before its step, and the step.
    public var deviceOffsetDB: Double?
    public var deviceEarlierOffsetDB: Double?
    public var deviceSince: Date?
    public var deviceStepDB: Double?

    public init(
        model: String?, os: String?, modelOffsetDB: Double?, modelEarlierOffsetDB: Double?, modelSince: Date?,
        osOffsetDB: Double?, deviceOffsetDB: Double?, deviceEarlierOffsetDB: Double?, deviceSince: Date?,
        deviceStepDB: Double?
    ) {
        self.model = model
        self.os = os
        self.modelOffsetDB = modelOffsetDB
        self.modelEarlierOffsetDB = modelEarlierOffsetDB
        self.modelSince = modelSince
        self.osOffsetDB = osOffsetDB
        self.deviceOffsetDB = deviceOffsetDB
        self.deviceEarlierOffsetDB = deviceEarlierOffsetDB
        self.deviceSince = deviceSince
        self.deviceStepDB = deviceStepDB
    }
}

/// A model's offset over time and per OS version (`device_model_offsets`, `device_model_os_offsets`).
public struct AdminModelOffsetHistory: Sendable, Equatable {
    public struct OSOffset: Sendable, Equatable {
        public var os: String
        public var offsetDB: Double
        public var checkins: Int

        public init(os: String, offsetDB: Double, checkins: Int) {
            self.os = os
            self.offsetDB = offsetDB
            self.checkins = checkins
        }
    }

    public var model: String
    public var offsetDB: Double
    /// When it stepped, and its offset before; nil without a step.
    public var since: Date?
    public var earlierOffsetDB: Double
    public var osOffsets: [OSOffset]

    public init(model: String, offsetDB: Double, since: Date?, earlierOffsetDB: Double, osOffsets: [OSOffset]) {
        self.model = model
        self.offsetDB = offsetDB
        self.since = since
        self.earlierOffsetDB = earlierOffsetDB
        self.osOffsets = osOffsets
    }
}

/// A device whose readings stepped (`device_offsets.step_db`). `clientID` is the stored (keyed)
/// id: shown shortened only.
public struct AdminDeviceStep: Sendable, Equatable {
    public var key: Int64
    public var clientID: String
    public var model: String?
    public var offsetDB: Double
    public var earlierOffsetDB: Double
    public var stepDB: Double
    public var since: Date?
    public var detectedAt: Date?

    public init(
        key: Int64, clientID: String, model: String?, offsetDB: Double, earlierOffsetDB: Double, stepDB: Double,
        since: Date?, detectedAt: Date?
    ) {
        self.key = key
        self.clientID = clientID
        self.model = model
        self.offsetDB = offsetDB
        self.earlierOffsetDB = earlierOffsetDB
        self.stepDB = stepDB
        self.since = since
        self.detectedAt = detectedAt
    }
}
