import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// JSON bodies of v2 answers.
struct VenueBody: Encodable {
    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    var timezone: String?
    var address: String?
    var category: String?
    var checkins: Int
    /// Overall calibrated level (dB) and its label; null until the venue has judged data.
    var level: Double?
    var label: String?
    var createdAt: Date
    var updatedAt: Date

    init(_ venue: Venue, checkins: Int, level: Double? = nil, label: String? = nil) {
        id = venue.externalID
        name = venue.name
        latitude = venue.latitude
        longitude = venue.longitude
        timezone = venue.timezone
        address = venue.address
        category = venue.category
        self.checkins = checkins
        self.level = level
        self.label = label
        createdAt = venue.createdAt
        updatedAt = venue.updatedAt
    }

    // Explicit nulls: clients can rely on every key being present.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(timezone, forKey: .timezone)
        try c.encode(address, forKey: .address)
        try c.encode(category, forKey: .category)
        try c.encode(checkins, forKey: .checkins)
        try c.encode(level, forKey: .level)
        try c.encode(label, forKey: .label)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, latitude, longitude, timezone, address, category, checkins, level, label, createdAt, updatedAt
    }
}

/// The answer to `POST /api/v2/checkins`: what the server made of it on receipt.
struct ReceiptBody: Encodable {
    var id: UUID
    var venue: String
    var status: CheckinStatus
    var reasons: [JudgementReason]
    var sampleCount: Int
    var receivedAt: Date
    var links: [String: String]

    init(_ receipt: CheckinReceipt) {
        id = receipt.id
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

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id.uuidString.lowercased(), forKey: .id)
        try c.encode(venue, forKey: .venue)
        try c.encode(status, forKey: .status)
        try c.encode(reasons, forKey: .reasons)
        try c.encode(sampleCount, forKey: .sampleCount)
        try c.encode(receivedAt, forKey: .receivedAt)
        try c.encode(links, forKey: .links)
    }

    enum CodingKeys: String, CodingKey { case id, venue, status, reasons, sampleCount, receivedAt, links }
}

/// `GET /api/v2/checkins/{id}`: the check-in as the server judged it.
struct CheckinBody: Encodable {
    var checkin: StoredCheckin
    /// Calibrated dB of the check-in's level (model and reference offsets), and its label.
    var level: Double?
    var label: String?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(checkin.id.uuidString.lowercased(), forKey: .id)
        try c.encode(checkin.venueExternalID, forKey: .venue)
        try c.encode(DeviceLabel(checkin.deviceID, model: checkin.deviceModel), forKey: .device)
        try c.encode(checkin.source.rawValue, forKey: .source)
        try c.encode(checkin.status, forKey: .status)
        try c.encode(checkin.reasons, forKey: .reasons)
        try c.encode(checkin.receipt.receivedAt, forKey: .receivedAt)
        try c.encode(checkin.startedAt, forKey: .startedAt)
        let end = checkin.startedAt.addingTimeInterval(TimeInterval(checkin.offsetsSeconds.last ?? 0))
        try c.encode(end, forKey: .endedAt)
        try c.encode(checkin.offsetsSeconds.count, forKey: .sampleCount)
        try c.encode(checkin.validSeconds, forKey: .validSeconds)
        try c.encode(checkin.levelDBFS.map { (Double($0) * 10).rounded() / 10 }, forKey: .levelDBFS)
        try c.encode(level, forKey: .level)
        try c.encode(label, forKey: .label)
        try c.encode(checkin.distanceMetres.map { $0.rounded() }, forKey: .distanceMetres)
        try c.encode(checkin.zoneGuessed, forKey: .zoneGuessed)
        try c.encode(checkin.judgedAt, forKey: .judgedAt)
    }

    enum CodingKeys: String, CodingKey {
        case id, venue, device, source, status, reasons, receivedAt, startedAt, endedAt, sampleCount, validSeconds
        case levelDBFS, level, label, distanceMetres, zoneGuessed, judgedAt
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

extension VenueBody: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("address")
            w.string(address)
            w.key("category")
            w.string(category)
            w.key("checkins")
            w.int(checkins)
            w.key("createdAt")
            w.date(createdAt)
            w.key("id")
            w.string(id)
            w.key("label")
            w.string(label)
            w.key("latitude")
            w.number(latitude)
            w.key("level")
            w.number(level)
            w.key("longitude")
            w.number(longitude)
            w.key("name")
            w.string(name)
            w.key("timezone")
            w.string(timezone)
            w.key("updatedAt")
            w.date(updatedAt)
        }
    }
}
