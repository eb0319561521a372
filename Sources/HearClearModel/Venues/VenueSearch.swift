import Foundation

/// What a search asks PostgreSQL (docs/ARCHITECTURE.md, "Search"). Levels are calibrated dB
/// rounded to 0.1 dB, as the API reports them; the store adds the reference offset to the stored
/// model-corrected dBFS and rounds the same way.
public struct VenueSearchQuery: Sendable, Equatable {
    public enum Order: String, Sendable, Equatable {
        /// Nearest first.
        case distance
        /// Quietest first; venues without a level last, then nearest first.
        case level
    }

    /// Which levels pass: at most `maximumDB`, below `belowDB`, and in one of the bands numbered
    /// `bandIndexes` (0 = the quietest) of the bands whose upper bounds are `bandBounds` (the
    /// last band has none). A venue without a level never passes.
    public struct LevelFilter: Sendable, Equatable {
        public var maximumDB: Double?
        public var belowDB: Double?
        public var bandBounds: [Double]
        public var bandIndexes: [Int]

        public init(
            maximumDB: Double? = nil, belowDB: Double? = nil, bandBounds: [Double] = [], bandIndexes: [Int] = []
        ) {
            self.maximumDB = maximumDB
            self.belowDB = belowDB
            self.bandBounds = bandBounds
            self.bandIndexes = bandIndexes
        }
    }

    /// Where the previous page ended: the sort key of its last venue.
    public struct Position: Sendable, Equatable, Codable {
        /// The level sorted by (``Order/level`` only); `nil` for a venue without one.
        public var levelDB: Double?
        public var distanceMetres: Double
        public var venueID: Int64

        public init(levelDB: Double?, distanceMetres: Double, venueID: Int64) {
            self.levelDB = levelDB
            self.distanceMetres = distanceMetres
            self.venueID = venueID
        }
    }

    public var latitude: Double
    public var longitude: Double
    public var radiusMetres: Double
    /// Each venue's level is its cell at the venue-local weekday and hour of this instant; without
    /// one, its overall level.
    public var at: Date?
    public var category: String?
    public var filter: LevelFilter?
    public var order: Order
    public var limit: Int
    public var after: Position?
    /// A venue left out (the one alternatives are sought for).
    public var excludingVenueID: Int64?

    public init(
        latitude: Double, longitude: Double, radiusMetres: Double, at: Date? = nil, category: String? = nil,
        filter: LevelFilter? = nil, order: Order = .distance, limit: Int = 20, after: Position? = nil,
        excludingVenueID: Int64? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusMetres = radiusMetres
        self.at = at
        self.category = category
        self.filter = filter
        self.order = order
        self.limit = limit
        self.after = after
        self.excludingVenueID = excludingVenueID
    }
}

/// One venue a search found.
public struct VenueSearchHit: Sendable, Equatable {
    public var venue: Venue
    public var checkins: Int
    /// Great-circle distance from the search point, metres (on PostGIS's sphere).
    public var distanceMetres: Double
    /// The overall level (median of measured cells), calibrated dB rounded to 0.1; `nil` without data.
    public var overallDB: Double?
    /// The cell used for `at`: `nil` without `at` or when the venue has no cell (or estimate) there.
    public var cell: StoredCell?
    /// Where this hit sits in the order, for the next page's cursor.
    public var position: VenueSearchQuery.Position

    public init(
        venue: Venue, checkins: Int, distanceMetres: Double, overallDB: Double? = nil, cell: StoredCell? = nil,
        position: VenueSearchQuery.Position
    ) {
        self.venue = venue
        self.checkins = checkins
        self.distanceMetres = distanceMetres
        self.overallDB = overallDB
        self.cell = cell
        self.position = position
    }
}

/// A venue's week of measured levels, for similarity.
public struct VenuePattern: Sendable, Equatable {
    public var venue: Venue
    public var checkins: Int
    public var distanceMetres: Double
    /// Median of the measured cells, model-corrected dBFS.
    public var overallDBFS: Double?
    /// 168 entries, index `(weekday − 1) · 24 + hour`: the measured cell's model-corrected dBFS,
    /// `nil` where the venue has no measured cell (estimates are left out).
    public var measuredLevelsDBFS: [Double?]

    public init(
        venue: Venue, checkins: Int, distanceMetres: Double, overallDBFS: Double? = nil, measuredLevelsDBFS: [Double?]
    ) {
        self.venue = venue
        self.checkins = checkins
        self.distanceMetres = distanceMetres
        self.overallDBFS = overallDBFS
        self.measuredLevelsDBFS = measuredLevelsDBFS
    }
}
