import Foundation
import LoudnessCore

/// Builds check-ins for the venue judge tests: clean, varied seconds around a level.
enum VenueCheckinFactory {
    /// Monday 2026-11-16 21:00 UTC (a venue at UTC+0 then reads Monday 21:00).
    static let mondayNine = Date(timeIntervalSince1970: 1_794_862_800)

    /// `seconds` one-second samples around `levelDBFS` from `start`, bucketed at UTC+`offsetMinutes`.
    static func checkin(
        _ id: String, device: String, levelDBFS: Double, seconds: Int = 120, start: Date = mondayNine,
        offsetMinutes: Int = 0, modelOffsetDB: Double = 0, exclusionReasons: [JudgementReason] = []
    ) throws -> VenueCheckin {
        let averages = SampleFactory.varied(seconds, around: levelDBFS)
        let samples = try SampleFactory.samples(averages)
        let hours = VenueClock(utcOffsetMinutes: offsetMinutes).localHours(
            start: start, offsetsSeconds: samples.offsetsSeconds)
        return try VenueCheckin(
            id: id, deviceID: device, samples: samples, localHours: hours, modelOffsetDB: modelOffsetDB,
            exclusionReasons: exclusionReasons)
    }
}
