/// One piece of the crowd calibration's evidence (docs/ARCHITECTURE.md, "Crowd calibration",
/// "Phones that drift"): a check-in's hour at a venue, as its phone measured it.
public struct CrowdPiece: Sendable, Equatable {
    /// The venue.
    public var venue: Int64
    /// Its venue-local weekday and hour.
    public var cell: LocalHour
    /// Which of the venue's periods it falls in: the changes in force before it (a venue that
    /// changed is another room after).
    public var period: Int
    public var device: Int64
    public var model: String
    /// The phone's operating system (`"iOS 18.1"`), nil when it sent none.
    public var os: String?
    /// When the check-in was made, seconds since 1970.
    public var time: Double
    /// Its level, dBFS (no offset).
    public var levelDBFS: Double

    public init(
        venue: Int64, cell: LocalHour, period: Int = 0, device: Int64, model: String, os: String? = nil, time: Double,
        levelDBFS: Double
    ) {
        self.venue = venue
        self.cell = cell
        self.period = period
        self.device = device
        self.model = model
        self.os = os
        self.time = time
        self.levelDBFS = levelDBFS
    }

    /// The calibration cell: venue × weekday × hour × period.
    var cellKey: Int64 { (venue * 168 + Int64(cell.index)) * 64 + Int64(min(period, 63)) }
}

extension LocalHour {
    /// 0 for Monday 0:00 … 167 for Sunday 23:00.
    var index: Int { (weekday - 1) * 24 + hour }
}
