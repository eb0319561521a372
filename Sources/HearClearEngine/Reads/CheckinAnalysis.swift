import Foundation
import HearClearModel
import LoudnessCore

/// How the engine reads a stored check-in's seconds, for the admin to draw (the engine explains a
/// check-in; the admin draws it): the samples, which seconds cleaning removed and why, and, for a
/// check-in that carries LCeq or bands, the windows of its sound character cut by the venue-local
/// hours the worker used (the venue's zone, else each sample's UTC offset).
public struct CheckinAnalysis: Sendable {
    /// The check-in's sound character: its spectra and their labelled windows.
    public struct Sound: Sendable {
        public let spectra: SpectralSamples
        public let localHours: [LocalHour]
        /// Windows of kept seconds, each venue-local hour on its own, in time order.
        public let windows: [ClassifiedWindow]
    }

    public let samples: SessionSamples
    /// Per second, why cleaning removed it; `nil` for a kept second.
    public let rejections: [SecondRejection?]
    /// Seconds kept by cleaning.
    public let validSeconds: Int
    /// `nil` when the check-in carries neither LCeq nor bands.
    public let sound: Sound?

    /// A modified z-score past this makes an hour an outlier in its cell.
    public static var outlierThreshold: Double { CellEstimator().outlierThreshold }

    /// `nil` when the stored seconds do not make a session (a stored check-in always does).
    public init?(_ checkin: StoredCheckin, venueTimezone: String?) {
        guard
            let samples = try? SessionSamples(
                offsetsSeconds: checkin.offsetsSeconds.map(Double.init),
                averageDBFS: checkin.averageDBFS.map(Double.init), peakDBFS: checkin.peakDBFS.map(Double.init))
        else { return nil }
        let cleaned = SessionCleaner().clean(samples)
        self.samples = samples
        rejections = cleaned.rejections
        validSeconds = cleaned.validSeconds
        sound = Self.sound(checkin, samples: samples, rejections: cleaned.rejections, venueTimezone: venueTimezone)
    }

    private static func sound(
        _ checkin: StoredCheckin, samples: SessionSamples, rejections: [SecondRejection?], venueTimezone: String?
    ) -> Sound? {
        guard
            let spectra = try? SpectralSamples(
                count: samples.count, lceqDdB: checkin.lceqDdB, bandIndexes: checkin.bandIndexes,
                bandsDdB: checkin.bandsDdB)
        else { return nil }
        let localHours = VenueClock.localHours(
            start: checkin.startedAt, offsetsSeconds: samples.offsetsSeconds,
            utcOffsetsMinutes: checkin.utcOffsetsMinutes.map(Int.init),
            venueClock: venueTimezone.flatMap(VenueClock.init(timeZoneIdentifier:)))
        let windows = SecondCharacter.windows(
            samples: samples, kept: rejections.map { $0 == nil }, localHours: localHours, spectra: spectra)
        return Sound(spectra: spectra, localHours: localHours, windows: windows)
    }
}
