import LoudnessCore

/// What the search index holds of one venue, as PostgreSQL has it (docs/ARCHITECTURE.md, "Search"):
/// the venue's document and check-in count, and — for a venue with cells — its `venue_levels`
/// row (clock, overall level, every hour's level) and its cells as search reports them.
public struct SearchIndexRow: Sendable, Equatable {
    public var venue: Venue
    public var checkins: Int
    /// The name's folded words as stored (`venues.name_key`, ``NameWords/key(of:)``); `nil` for
    /// a venue written without one (then no search by name finds it, in PostgreSQL or the index).
    public var nameKey: String?
    /// `nil` for a venue without cells (no `venue_levels` row).
    public var levels: Levels?

    /// A venue's `venue_levels` row and cells. Levels are model-corrected dBFS as stored (`real`).
    public struct Levels: Sendable, Equatable {
        /// The zone PostgreSQL knows the venue by (`known_time_zone`), or `nil`.
        public var timezone: String?
        /// Without a zone: the UTC offset its check-ins carried most often.
        public var utcOffsetMinutes: Int?
        /// Median of the measured cells; `nil` without any.
        public var overallDBFS: Float?
        /// 168 entries, index `(weekday − 1) · 24 + hour`: the cell's level (measured or
        /// estimated), `nil` for no cell.
        public var levelsDBFS: [Float?]
        /// 168 entries: whether that hour's cell is measured.
        public var measured: [Bool]
        /// The venue's cells (`loudness_cells`), in any order.
        public var cells: [Cell]

        public init(
            timezone: String?, utcOffsetMinutes: Int?, overallDBFS: Float?, levelsDBFS: [Float?], measured: [Bool],
            cells: [Cell]
        ) {
            self.timezone = timezone
            self.utcOffsetMinutes = utcOffsetMinutes
            self.overallDBFS = overallDBFS
            self.levelsDBFS = levelsDBFS
            self.measured = measured
            self.cells = cells
        }
    }

    /// One cell as search reports it.
    public struct Cell: Sendable, Equatable {
        /// `(weekday − 1) · 24 + hour`, 0…167.
        public var index: Int
        public var levelDBFS: Float
        public var rangeLowDBFS: Float
        public var rangeHighDBFS: Float
        public var checkins: Int
        public var devices: Int
        /// `low`, `medium` or `high`.
        public var confidence: String
        public var basis: PatternEstimate.Basis?

        public init(
            index: Int, levelDBFS: Float, rangeLowDBFS: Float, rangeHighDBFS: Float, checkins: Int, devices: Int,
            confidence: String, basis: PatternEstimate.Basis?
        ) {
            self.index = index
            self.levelDBFS = levelDBFS
            self.rangeLowDBFS = rangeLowDBFS
            self.rangeHighDBFS = rangeHighDBFS
            self.checkins = checkins
            self.devices = devices
            self.confidence = confidence
            self.basis = basis
        }
    }

    public init(venue: Venue, checkins: Int, nameKey: String?, levels: Levels?) {
        self.venue = venue
        self.checkins = checkins
        self.nameKey = nameKey
        self.levels = levels
    }
}
