/// What cleaning made of one check-in, all the venue judgement needs of its samples: whether
/// cleaning accepted it, its valid seconds, the energetic level of its kept seconds and its
/// statistics per venue-local hour.
///
/// Cleaning depends on nothing but the check-in's own samples and the venue's clock, so the
/// aggregation worker stores this once per check-in and re-judges a venue from the summaries
/// instead of cleaning every check-in again. Levels are rounded to `Float`, the precision they
/// are stored with, so a summary judges the same fresh as reloaded.
public struct CleaningSummary: Sendable, Equatable {
    /// Why cleaning excluded the check-in; nil when it accepted it.
    public let exclusion: CheckinExclusion?
    public let validSeconds: Int
    /// `Leq` of the kept seconds (dBFS); nil when none was kept.
    public let levelDBFS: Double?
    public let hours: [HourStatistics]

    public init(exclusion: CheckinExclusion?, validSeconds: Int, levelDBFS: Double?, hours: [HourStatistics]) {
        self.exclusion = exclusion
        self.validSeconds = validSeconds
        self.levelDBFS = levelDBFS.map(Self.stored)
        self.hours = hours.map { hour in
            HourStatistics(
                localHour: hour.localHour, leqDBFS: Self.stored(hour.leqDBFS), l10DBFS: Self.stored(hour.l10DBFS),
                l50DBFS: Self.stored(hour.l50DBFS), l90DBFS: Self.stored(hour.l90DBFS),
                maxPeakDBFS: Self.stored(hour.maxPeakDBFS), validSeconds: hour.validSeconds,
                character: hour.character)
        }
    }

    /// Cleans `samples` (``SessionCleaner``) and summarises them by `localHours`; with `spectra`,
    /// each hour's character too, from the same kept seconds (the mask of the levels), as with
    /// `phoneClasses` (the phone's own classes).
    public init(
        cleaning samples: SessionSamples, localHours: [LocalHour], cleaner: SessionCleaner = SessionCleaner(),
        spectra: SpectralSamples? = nil, phoneClasses: PhoneClassWindows? = nil,
        characterRules: SecondCharacterRules = SecondCharacterRules()
    ) {
        let cleaned = cleaner.clean(samples)
        let hours =
            (try? HourStatistics.perHour(
                samples: samples, kept: cleaned.kept, localHours: localHours, spectra: spectra,
                phoneClasses: phoneClasses, rules: characterRules))
            ?? []
        let kept = zip(samples.averageDBFS, cleaned.kept).filter(\.1).map(\.0)
        let exclusion: CheckinExclusion? =
            if case .excluded(let reason) = cleaned.verdict { reason } else { nil }
        self.init(
            exclusion: exclusion, validSeconds: cleaned.validSeconds, levelDBFS: Level.energeticMean(kept), hours: hours
        )
    }

    public var isAccepted: Bool { exclusion == nil }

    /// A level as a `real` column keeps it.
    static func stored(_ value: Double) -> Double { Double(Float(value)) }
}
