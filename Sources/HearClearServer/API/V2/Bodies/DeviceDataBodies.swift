import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// `GET /api/v2/devices/{deviceId}/data`: everything stored about a device. The device is shown
/// by its short id, as everywhere (the phone knows its whole id; the store holds only its keyed
/// form), its check-ins with their samples and judgements, its reports, its calibration.
struct DeviceDataBody: Encodable {
    struct Device: Encodable {
        var id: String
        @KeepsNull var model: String?
        var firstSeenAt: Date
        var lastSeenAt: Date
        var excluded: Bool
        @KeepsNull var calibration: Calibration?
    }

    struct Calibration: Encodable {
        /// dB this device reads above (+) or below (−) its model, from the crowd calibration.
        var offsetDB: Double
        @KeepsNull var standardErrorDB: Double?
        var checkins: Int
    }

    struct Checkin: Encodable {
        var id: String
        var venue: String
        var source: String
        var receivedAt: Date
        var startedAt: Date
        var status: CheckinStatus
        var reasons: [JudgementReason]
        @KeepsNull var levelDBFS: Double?
        @KeepsNull var validSeconds: Int?
        @KeepsNull var judgedAt: Date?
        /// The phone's distance from the venue and the accuracy it gave (its coordinates are not kept).
        @KeepsNull var distanceMetres: Double?
        @KeepsNull var locationAccuracyMetres: Double?
        var zoneGuessed: Bool
        /// When the samples were removed past the retention (`--raw-retention-days`); they are
        /// then empty.
        @KeepsNull var samplesRemovedAt: Date?
        var samples: Samples
    }

    /// The per-second samples as stored: parallel arrays.
    struct Samples: Encodable {
        var offsetsSeconds: [Int32]
        var utcOffsetsMinutes: [Int16]
        var averageDBFS: [Float]
        var peakDBFS: [Float]
        /// LCeq and third-octave bands in 0.1 dB, when the phone measured them.
        @KeepsNull var lceqDdB: [Int16]?
        @KeepsNull var bandIndexes: [Int16]?
        @KeepsNull var bandsDdB: [Int16]?
    }

    var device: Device
    var checkins: [Checkin]
    var reports: [ReportBody]

    init(_ data: DevicePrivacy.Data) {
        let calibration = data.device.calibration.map {
            Calibration(offsetDB: $0.offsetDB, standardErrorDB: $0.standardErrorDB, checkins: $0.checkins)
        }
        device = Device(
            id: DeviceIdentity.shortened(data.device.clientID), model: data.device.model,
            firstSeenAt: data.device.firstSeenAt, lastSeenAt: data.device.lastSeenAt, excluded: data.device.excluded,
            calibration: calibration)
        checkins = data.checkins.map { checkin in
            Checkin(
                id: checkin.id.uuidString.lowercased(), venue: checkin.venueExternalID, source: checkin.source.rawValue,
                receivedAt: checkin.receipt.receivedAt, startedAt: checkin.startedAt, status: checkin.status,
                reasons: checkin.reasons, levelDBFS: checkin.levelDBFS.map(Double.init),
                validSeconds: checkin.validSeconds, judgedAt: checkin.judgedAt, distanceMetres: checkin.distanceMetres,
                locationAccuracyMetres: checkin.locationAccuracyMetres, zoneGuessed: checkin.zoneGuessed,
                samplesRemovedAt: checkin.samplesRemovedAt,
                samples: Samples(
                    offsetsSeconds: checkin.offsetsSeconds, utcOffsetsMinutes: checkin.utcOffsetsMinutes,
                    averageDBFS: checkin.averageDBFS, peakDBFS: checkin.peakDBFS, lceqDdB: checkin.lceqDdB,
                    bandIndexes: checkin.bandIndexes, bandsDdB: checkin.bandsDdB))
        }
        reports = data.reports.map(ReportBody.init)
    }
}

/// `DELETE /api/v2/devices/{deviceId}`, 202: what was removed; the venues it had checked in at
/// are being judged again without it.
struct DeviceErasureBody: Encodable {
    struct Removed: Encodable {
        var checkins: Int
        var reports: Int
        var calibration: Bool
        var device: Bool
    }

    var status = "erased"
    var removed: Removed
    /// Venues queued to be judged again without the device's check-ins.
    var venuesRejudged: Int

    init(_ summary: DeviceErasureSummary) {
        removed = Removed(
            checkins: summary.checkins, reports: summary.reports, calibration: summary.calibration, device: true)
        venuesRejudged = summary.venues
    }
}
