import Foundation

extension RFC3339 {
    /// The local time at `offsetMinutes` east of UTC, written with that offset and with
    /// milliseconds only when the time has a fraction: `2026-11-21T21:03:04+11:00`, `Z` for zero.
    public static func format(secondsSince1970: Double, offsetMinutes: Int) -> String {
        // The wall-clock time at the offset, written as if it were UTC, then its `Z` swapped for the offset.
        let local = format(Date(timeIntervalSince1970: secondsSince1970 + Double(offsetMinutes * 60)))
        guard offsetMinutes != 0 else { return local }
        let minutes = abs(offsetMinutes)
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return local.dropLast() + (offsetMinutes < 0 ? "-" : "+") + pad(minutes / 60) + ":" + pad(minutes % 60)
    }

    /// A timestamp from its parts, for callers outside this module.
    public static func timestamp(secondsSince1970: Double, offsetMinutes: Int) -> Timestamp {
        Timestamp(secondsSince1970: secondsSince1970, offsetMinutes: offsetMinutes)
    }
}
