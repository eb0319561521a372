import Foundation
import LoudnessCore

/// The dashboard's figures, read by ``AdminOverviewRepository``.
public enum AdminOverview {
    /// Counts over the whole database.
    public struct Totals: Sendable, Equatable {
        public var venues = 0
        public var devices = 0
        public var checkins = 0
        public var samples = 0
        public var pending = 0
        public var included = 0
        public var outlier = 0
        public var excluded = 0

        public init() {}
    }

    /// The aggregation queue: entries, distinct venues, and when the oldest entry was queued.
    public struct Queue: Sendable, Equatable {
        public var entries: Int
        public var venues: Int
        public var oldestEnqueuedAt: Date?
        /// The database's clock when read, to age the oldest entry without clock skew.
        public var readAt: Date

        public init(entries: Int, venues: Int, oldestEnqueuedAt: Date? = nil, readAt: Date) {
            self.entries = entries
            self.venues = venues
            self.oldestEnqueuedAt = oldestEnqueuedAt
            self.readAt = readAt
        }
    }

    public struct RecentVenue: Sendable, Equatable {
        public var externalID: String
        public var name: String
        public var lastCheckinAt: Date?
        public var checkins: Int

        public init(externalID: String, name: String, lastCheckinAt: Date? = nil, checkins: Int) {
            self.externalID = externalID
            self.name = name
            self.lastCheckinAt = lastCheckinAt
            self.checkins = checkins
        }
    }

    public struct RecentDevice: Sendable, Equatable {
        public var key: Int64
        /// Whole: shorten it before showing it.
        public var clientID: String
        public var model: String?
        public var lastSeenAt: Date
        public var excluded: Bool

        public init(key: Int64, clientID: String, model: String? = nil, lastSeenAt: Date, excluded: Bool) {
            self.key = key
            self.clientID = clientID
            self.model = model
            self.lastSeenAt = lastSeenAt
            self.excluded = excluded
        }
    }

    public struct RecentCheckin: Sendable, Equatable {
        public var id: UUID
        public var venueExternalID: String
        public var venueName: String
        /// Whole: shorten it before showing it.
        public var deviceClientID: String
        public var deviceModel: String?
        public var status: CheckinStatus
        public var reasons: [JudgementReason]
        public var receivedAt: Date
        public var sampleCount: Int

        public init(
            id: UUID, venueExternalID: String, venueName: String, deviceClientID: String, deviceModel: String? = nil,
            status: CheckinStatus, reasons: [JudgementReason], receivedAt: Date, sampleCount: Int
        ) {
            self.id = id
            self.venueExternalID = venueExternalID
            self.venueName = venueName
            self.deviceClientID = deviceClientID
            self.deviceModel = deviceModel
            self.status = status
            self.reasons = reasons
            self.receivedAt = receivedAt
            self.sampleCount = sampleCount
        }
    }
}
