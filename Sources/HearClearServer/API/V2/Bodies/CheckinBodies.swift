import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The answer to `POST /api/v2/checkins`: what the server made of it on receipt.
struct ReceiptBody: Encodable {
    var id: String
    var venue: String
    var status: CheckinStatus
    var reasons: [JudgementReason]
    var sampleCount: Int
    var receivedAt: Date
    var links: [String: String]

    init(_ receipt: CheckinReceipt) {
        id = receipt.id.uuidString.lowercased()
        venue = receipt.venueExternalID
        status = receipt.status
        reasons = receipt.reasons
        sampleCount = receipt.sampleCount
        receivedAt = receipt.receivedAt
        links = [
            "self": "/api/v2/checkins/\(receipt.id.uuidString.lowercased())",
            "venue": "/api/v2/venues/\(receipt.venueExternalID)",
        ]
    }
}

/// `GET /api/v2/checkins/{id}`: the check-in as the server judged it.
struct CheckinBody: Encodable {
    var id: String
    var venue: String
    var device: DeviceLabel
    var source: String
    var status: CheckinStatus
    var reasons: [JudgementReason]
    var receivedAt: Date
    var startedAt: Date
    var endedAt: Date
    var sampleCount: Int
    @KeepsNull var validSeconds: Int?
    @KeepsNull var levelDBFS: Double?
    /// Calibrated dB of the check-in's level (model and reference offsets), and its label.
    @KeepsNull var level: Double?
    @KeepsNull var label: String?
    @KeepsNull var distanceMetres: Double?
    var zoneGuessed: Bool
    @KeepsNull var judgedAt: Date?

    init(checkin: StoredCheckin, level: Double?, label: String?) {
        id = checkin.id.uuidString.lowercased()
        venue = checkin.venueExternalID
        device = DeviceLabel(checkin.deviceID, model: checkin.deviceModel)
        source = checkin.source.rawValue
        status = checkin.status
        reasons = checkin.reasons
        receivedAt = checkin.receipt.receivedAt
        startedAt = checkin.startedAt
        endedAt =
            checkin.endedAt ?? checkin.startedAt.addingTimeInterval(TimeInterval(checkin.offsetsSeconds.last ?? 0))
        sampleCount = checkin.receipt.sampleCount
        validSeconds = checkin.validSeconds
        levelDBFS = checkin.levelDBFS.map { (Double($0) * 10).rounded() / 10 }
        self.level = level
        self.label = label
        distanceMetres = checkin.distanceMetres.map { $0.rounded() }
        zoneGuessed = checkin.zoneGuessed
        judgedAt = checkin.judgedAt
    }
}

/// A device as anyone outside the store sees it: the id shortened, never whole.
struct DeviceLabel: Encodable {
    var id: String
    var model: String?

    init(_ clientID: String, model: String?) {
        id = DeviceIdentity.shortened(clientID)
        self.model = model
    }
}
