import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// A venue as v2 answers it (`GET /api/v2/venues/{venueId}`, and in search results).
struct VenueBody: Encodable {
    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    @KeepsNull var timezone: String?
    @KeepsNull var address: String?
    @KeepsNull var category: String?
    var checkins: Int
    /// Overall calibrated level (dB) and its label; null until the venue has judged data.
    @KeepsNull var level: Double?
    @KeepsNull var label: String?
    var createdAt: Date
    var updatedAt: Date
    /// When a lasting change of the venue's level was detected (null when none is in force), for
    /// `GET /api/v2/venues/{venueId}`; left out (nil) of search results.
    var changedAt: KeepsNull<Date>?

    init(_ venue: Venue, checkins: Int, level: Double? = nil, label: String? = nil, changedAt: KeepsNull<Date>? = nil) {
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
        self.changedAt = changedAt
    }

}

extension VenueBody {
    /// A found venue's document, with its overall level and label.
    init(_ hit: VenueFinder.Hit) {
        self.init(hit.venue, checkins: hit.checkins, level: hit.overall?.levelDB, label: hit.overall?.label)
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
