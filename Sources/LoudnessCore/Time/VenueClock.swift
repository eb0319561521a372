import Foundation

/// Maps absolute sample times to venue-local ``LocalHour``s: in the venue's IANA time zone when
/// known (DST-correct), else at a fixed UTC offset taken from the samples' own timestamps.
///
/// Fast path: a zone's UTC offset is looked up once per local hour (and again at a DST
/// transition), not once per second. Weekday and hour then follow from the local wall-clock time
/// by integer arithmetic, which is what Foundation's Gregorian `Calendar` computes (a test checks
/// them against `Calendar` over whole years). Create one clock per venue and reuse it.
public struct VenueClock: Sendable {
    private enum Reference: Sendable {
        case zone(TimeZone)
        case fixedOffset(seconds: Double)
    }

    private let reference: Reference

    /// `init(timeZone:)`: local time in `timeZone`, DST included.
    public init(timeZone: TimeZone) {
        reference = .zone(timeZone)
    }

    /// `init(timeZoneIdentifier:)`: local time in an IANA zone such as "Australia/Sydney";
    /// `nil` when Foundation does not know the identifier.
    public init?(timeZoneIdentifier: String) {
        guard let zone = TimeZone(identifier: timeZoneIdentifier) else { return nil }
        self.init(timeZone: zone)
    }

    /// `init(utcOffsetMinutes:)`: local time at a fixed offset (e.g. +660 for "+11:00"), for
    /// venues without a known zone; use the offset of the check-in's own timestamps.
    public init(utcOffsetMinutes: Int) {
        reference = .fixedOffset(seconds: Double(utcOffsetMinutes * 60))
    }

    /// `localHour(at:utcOffsetMinutes:)`: the weekday and hour of one instant at the UTC offset
    /// carried by that sample's own timestamp (the per-sample fallback when no zone is known).
    public static func localHour(at date: Date, utcOffsetMinutes: Int) -> LocalHour {
        LocalHour(localSecondsSinceEpoch: date.timeIntervalSince1970 + Double(utcOffsetMinutes * 60))
    }

    /// `localHour(at:)`: the local weekday and hour of one instant.
    public func localHour(at date: Date) -> LocalHour {
        span(containing: date.timeIntervalSince1970).hour
    }

    /// `localHours(start:offsetsSeconds:)`: one ``LocalHour`` per sample at `start + offset`.
    /// Offsets must increase (as in ``SessionSamples``) for the per-hour cache to pay off;
    /// results are correct for any order.
    public func localHours(start: Date, offsetsSeconds: [Double]) -> [LocalHour] {
        let startSeconds = start.timeIntervalSince1970
        var hours: [LocalHour] = []
        hours.reserveCapacity(offsetsSeconds.count)
        var current: (hour: LocalHour, from: Double, until: Double)?
        for offset in offsetsSeconds {
            let instant = startSeconds + offset
            if let span = current, instant >= span.from, instant < span.until {
                hours.append(span.hour)
                continue
            }
            let fresh = span(containing: instant)
            current = (fresh.hour, instant, fresh.until)
            hours.append(fresh.hour)
        }
        return hours
    }

    /// The local hour at `instant` (seconds since 1970 UTC) and the first instant after it at
    /// which the local hour may change: the next local hour boundary or the next zone transition.
    private func span(containing instant: Double) -> (hour: LocalHour, until: Double) {
        let offset: Double
        var transition = Double.infinity
        switch reference {
        case .fixedOffset(let seconds):
            offset = seconds
        case .zone(let zone):
            let date = Date(timeIntervalSince1970: instant)
            offset = Double(zone.secondsFromGMT(for: date))
            if let next = zone.nextDaylightSavingTimeTransition(after: date) {
                transition = next.timeIntervalSince1970
            }
        }
        let local = instant + offset
        let nextLocalHour = ((local / 3600).rounded(.down) + 1) * 3600
        return (LocalHour(localSecondsSinceEpoch: local), min(nextLocalHour - offset, transition))
    }
}
