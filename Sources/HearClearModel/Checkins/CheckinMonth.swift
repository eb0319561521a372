import Foundation

/// A UTC calendar month, written `YYYY-MM`: the span of one partition of `checkins` (its name is
/// the Store's, `UTCMonth.partitionName`; docs/ARCHITECTURE.md, "Check-ins by month").
public struct UTCMonth: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    /// 1…12.
    public let month: Int

    /// `nil` unless `month` is 1…12 and `year` 1…9999.
    public init?(year: Int, month: Int) {
        guard (1...9999).contains(year), (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    /// Exactly `YYYY-MM` (four digits, a hyphen, two digits, month 01…12); `nil` for anything else.
    public init?(parsing text: String) {
        let characters = Array(text.utf8)
        guard characters.count == 7, characters[4] == UInt8(ascii: "-") else { return nil }
        let digits = characters[0..<4] + characters[5..<7]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let year = Int(String(decoding: characters[0..<4], as: UTF8.self)),
            let month = Int(String(decoding: characters[5..<7], as: UTF8.self))
        else { return nil }
        self.init(year: year, month: month)
    }

    /// The UTC month `instant` falls in.
    public init(containing instant: Date) {
        let parts = Self.calendar.dateComponents([.year, .month], from: instant)
        self.year = parts.year ?? 1970
        self.month = parts.month ?? 1
    }

    /// Its first instant, 00:00 UTC on the 1st.
    public var start: Date {
        Self.calendar.date(from: DateComponents(year: year, month: month, day: 1)) ?? .distantPast
    }

    /// The month `count` months later (earlier when negative).
    public func adding(months count: Int) -> UTCMonth {
        let index = year * 12 + (month - 1) + count
        return UTCMonth(unchecked: index / 12, month: index % 12 + 1)
    }

    /// `YYYY-MM`.
    public var description: String {
        String(format: "%04d-%02d", year, month)
    }

    public static func < (lhs: UTCMonth, rhs: UTCMonth) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }

    private init(unchecked year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

/// One month's partition of `checkins` as stored.
public struct CheckinMonth: Sendable, Equatable {
    public var month: UTCMonth
    /// Its check-ins.
    public var checkins: Int
    /// The earliest and latest `started_at` in it; `nil` when it is empty.
    public var oldestStartedAt: Date?
    public var newestStartedAt: Date?
    /// The partition's size on disk, its indexes and TOAST included (`pg_total_relation_size`).
    public var bytes: Int64

    public init(month: UTCMonth, checkins: Int, oldestStartedAt: Date?, newestStartedAt: Date?, bytes: Int64) {
        self.month = month
        self.checkins = checkins
        self.oldestStartedAt = oldestStartedAt
        self.newestStartedAt = newestStartedAt
        self.bytes = bytes
    }
}

/// What dropping one month removed (`hearclear months drop`).
public struct CheckinMonthDrop: Sendable, Equatable {
    public var month: UTCMonth
    /// Its check-ins, and their ids in `checkin_ids`.
    public var checkins: Int
    /// Their hourly pieces (`checkin_hours`).
    public var hours: Int
    /// Admins' decisions on them (`checkin_overrides`).
    public var overrides: Int
    /// Queue entries naming one of them (`aggregation_queue`).
    public var queueEntries: Int
    /// Venues that had check-ins in the month, queued to be judged again without them.
    public var venues: Int
    /// The partition's size on disk when it was dropped.
    public var bytes: Int64

    public init(
        month: UTCMonth, checkins: Int, hours: Int, overrides: Int, queueEntries: Int, venues: Int, bytes: Int64
    ) {
        self.month = month
        self.checkins = checkins
        self.hours = hours
        self.overrides = overrides
        self.queueEntries = queueEntries
        self.venues = venues
        self.bytes = bytes
    }
}
