import Foundation
import LoudnessCore

/// Where a check-in came from.
public enum CheckinSource: String, Sendable {
    case v2, v1, meter
}

/// A validated check-in, ready to store. Levels are dBFS; `offsetsSeconds` are whole
/// seconds after `startedAt` (strictly increasing, the first is 0).
public struct CheckinSubmission: Sendable, Equatable {
    public struct VenueReference: Sendable, Equatable {
        public var externalID: String
        /// Present when the client sent enough to create the venue.
        public var details: VenueDetails?

        public init(externalID: String, details: VenueDetails?) {
            self.externalID = externalID
            self.details = details
        }
    }

    public struct Location: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var accuracyMetres: Double?

        public init(latitude: Double, longitude: Double, accuracyMetres: Double?) {
            self.latitude = latitude
            self.longitude = longitude
            self.accuracyMetres = accuracyMetres
        }
    }

    public var id: UUID
    public var venue: VenueReference
    public var deviceID: String
    public var deviceModel: String?
    /// The phone's operating system, `"name version"` (`"iOS 18.1"`); nil when not sent.
    public var deviceOS: String?
    public var location: Location?
    public var source: CheckinSource
    public var startedAt: Date
    public var offsetsSeconds: [Int32]
    /// Each sample's own UTC offset in minutes, or a single element when they are all equal.
    public var utcOffsetsMinutes: [Int16]
    public var averageDBFS: [Float]
    public var peakDBFS: [Float]
    public var zoneGuessed: Bool
    /// Each sample's LCeq, 0.1 dB (dBFS × 10); nil when the check-in carries none. Stored with the
    /// levels in `checkins.samples` (migration 0017).
    public var lceqDdB: [Int16]?
    /// The third-octave bands every sample carries, ascending numbers 0 (50 Hz) … 23 (10 kHz);
    /// nil for none.
    public var bandIndexes: [Int16]?
    /// Their levels, 0.1 dB, sample-major; nil for none.
    public var bandsDdB: [Int16]?
    /// What the phone's own classifier heard (v2 only); nil when it sent none (`classes_*`).
    public var classes: PhoneClasses?

    public init(
        id: UUID, venue: VenueReference, deviceID: String, deviceModel: String?, deviceOS: String? = nil,
        location: Location?, source: CheckinSource, startedAt: Date, offsetsSeconds: [Int32],
        utcOffsetsMinutes: [Int16],
        averageDBFS: [Float], peakDBFS: [Float], zoneGuessed: Bool = false, lceqDdB: [Int16]? = nil,
        bandIndexes: [Int16]? = nil, bandsDdB: [Int16]? = nil, classes: PhoneClasses? = nil
    ) {
        self.id = id
        self.venue = venue
        self.deviceID = deviceID
        self.deviceModel = deviceModel
        self.deviceOS = deviceOS
        self.location = location
        self.source = source
        self.startedAt = startedAt
        self.offsetsSeconds = offsetsSeconds
        self.utcOffsetsMinutes = utcOffsetsMinutes
        self.averageDBFS = averageDBFS
        self.peakDBFS = peakDBFS
        self.zoneGuessed = zoneGuessed
        self.lceqDdB = lceqDdB
        self.bandIndexes = bandIndexes
        self.bandsDdB = bandsDdB
        self.classes = classes
    }

    public var endedAt: Date { startedAt.addingTimeInterval(TimeInterval(offsetsSeconds.last ?? 0)) }
}

/// What the server answers when it receives a check-in; stored so a resend gets it again.
public struct CheckinReceipt: Sendable, Equatable {
    public var id: UUID
    public var venueExternalID: String
    public var status: CheckinStatus
    public var reasons: [JudgementReason]
    public var receivedAt: Date
    public var sampleCount: Int

    public init(
        id: UUID, venueExternalID: String, status: CheckinStatus, reasons: [JudgementReason], receivedAt: Date,
        sampleCount: Int
    ) {
        self.id = id
        self.venueExternalID = venueExternalID
        self.status = status
        self.reasons = reasons
        self.receivedAt = receivedAt
        self.sampleCount = sampleCount
    }
}

/// The outcome of storing a check-in.
public enum IngestOutcome: Sendable, Equatable {
    /// First receipt.
    case created(CheckinReceipt)
    /// The same id with the same content: nothing written, the first receipt again.
    case duplicate(CheckinReceipt)
    /// The same id with other content.
    case conflict(id: UUID)
}

/// Why a check-in could not be stored (the request is at fault).
public enum IngestError: Error, Equatable {
    /// The venue does not exist and the check-in lacks what is needed to create it.
    case unknownVenue(externalID: String)
}
