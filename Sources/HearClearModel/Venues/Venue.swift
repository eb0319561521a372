import Foundation

/// A place people check in at, keyed by its external id (e.g. a Foursquare id).
public struct Venue: Sendable, Equatable {
    public var id: Int64
    public var externalID: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var timezone: String?
    public var address: String?
    public var category: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64, externalID: String, name: String, latitude: Double, longitude: Double, timezone: String? = nil,
        address: String? = nil, category: String? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.externalID = externalID
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.address = address
        self.category = category
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The fields a client may set on a venue.
public struct VenueDetails: Sendable, Equatable {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var timezone: String?
    public var address: String?
    public var category: String?

    public init(
        name: String, latitude: Double, longitude: Double, timezone: String? = nil, address: String? = nil,
        category: String? = nil
    ) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.address = address
        self.category = category
    }
}
