/// A venue-local weekday and hour: the time part of a cell key (venue × weekday × hour).
public struct LocalHour: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Lower-case English weekday names, index 0 = Monday, as used on the wire ("friday").
    public static let weekdayNames = [
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ]

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public let weekday: Int
    /// Hour of the day, 0…23.
    public let hour: Int

    /// `init(weekday:hour:)`: `weekday` 1 (Monday)…7 (Sunday), `hour` 0…23; anything else is a
    /// programming error and traps.
    public init(weekday: Int, hour: Int) {
        precondition((1...7).contains(weekday), "weekday must be 1 (Monday) … 7 (Sunday)")
        precondition((0...23).contains(hour), "hour must be 0…23")
        self.weekday = weekday
        self.hour = hour
    }

    /// The hour of the week, 0 (Monday 0:00) … 167 (Sunday 23:00): a venue's cell index.
    public var hourOfWeek: Int { (weekday - 1) * 24 + hour }

    /// `weekdayName`: "monday" … "sunday".
    public var weekdayName: String { Self.weekdayNames[weekday - 1] }

    /// `init(localSecondsSinceEpoch:)`: the weekday and hour of a wall-clock time given as seconds
    /// since 1970-01-01T00:00 *local* (UTC time plus the UTC offset). Proleptic Gregorian, as
    /// Foundation's `.gregorian` calendar: 1970-01-01 was a Thursday.
    public init(localSecondsSinceEpoch local: Double) {
        let hours = Int((local / 3600).rounded(.down))
        let days = Int((Double(hours) / 24).rounded(.down))
        let hourOfDay = hours - days * 24
        let weekdayFromMonday = ((days + 3) % 7 + 7) % 7
        self.init(weekday: weekdayFromMonday + 1, hour: hourOfDay)
    }

    public static func < (lhs: LocalHour, rhs: LocalHour) -> Bool {
        (lhs.weekday, lhs.hour) < (rhs.weekday, rhs.hour)
    }

    public var description: String { "\(weekdayName) \(hour):00" }
}
