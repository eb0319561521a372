import Foundation

extension VenueClock {
    /// `localHours(start:offsetsSeconds:utcOffsetsMinutes:venueClock:)`: the venue-local hour of
    /// each sample. With a `venueClock` (the venue's IANA zone) that clock decides; otherwise each
    /// sample's own UTC offset does, where `utcOffsetsMinutes` holds one offset per sample or a
    /// single one shared by all (as stored). An empty offset list counts as UTC.
    public static func localHours(
        start: Date, offsetsSeconds: [Double], utcOffsetsMinutes: [Int], venueClock: VenueClock?
    ) -> [LocalHour] {
        if let venueClock {
            return venueClock.localHours(start: start, offsetsSeconds: offsetsSeconds)
        }
        if utcOffsetsMinutes.count != offsetsSeconds.count {
            let clock = VenueClock(utcOffsetMinutes: utcOffsetsMinutes.first ?? 0)
            return clock.localHours(start: start, offsetsSeconds: offsetsSeconds)
        }
        return zip(offsetsSeconds, utcOffsetsMinutes).map { offset, minutes in
            localHour(at: start.addingTimeInterval(offset), utcOffsetMinutes: minutes)
        }
    }
}
