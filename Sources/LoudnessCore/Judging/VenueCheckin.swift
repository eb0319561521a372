/// One check-in of a venue, as ``VenueJudge`` re-judges it.
public struct VenueCheckin: Sendable, Equatable {
    /// The check-in's id.
    public let id: String
    /// The submitting device; check-ins of one device get one vote per cell.
    public let deviceID: String
    /// The per-second samples, dBFS (empty when the check-in comes as a ``summary``).
    public let samples: SessionSamples
    /// The check-in's LCeq and band levels, lined up with ``samples``; nil when it carries none
    /// (or comes as a ``summary``, which holds their character).
    public let spectra: SpectralSamples?
    /// The classes its phone's own classifier gave (docs/ARCHITECTURE.md, "The phone's own
    /// classes"); nil when it carries none (or comes as a ``summary``).
    public let phoneClasses: PhoneClassWindows?
    /// The venue-local weekday and hour of each sample (see ``VenueClock/localHours(start:offsetsSeconds:utcOffsetsMinutes:venueClock:)``).
    public let localHours: [LocalHour]
    /// What an earlier cleaning made of it; when present the judge uses it instead of cleaning.
    public let summary: CleaningSummary?
    /// The device model's calibration offset, dB, added to every level before cells are estimated.
    public let modelOffsetDB: Double
    /// Reasons decided outside cleaning that exclude the whole check-in, e.g.
    /// `too_far_from_venue` or `device_excluded`. Empty for a usable check-in.
    public let exclusionReasons: [JudgementReason]
    /// An admin forced it in: it counts in every cell where a piece has the 10 valid seconds,
    /// whatever its exclusion reasons, the cleaning verdict and the outlier test say.
    public let forcedInclusion: Bool
    /// When its first second was measured, seconds since 1970 (UTC); `nil` when unknown. Orders
    /// the venue's history for change detection and sets how recent it is
    /// (docs/ARCHITECTURE.md, "What a check-in weighs"); a check-in without it is never in a
    /// change's evidence and counts as recent.
    public var startedAt: Double? = nil
    /// What the judge knows of its device beyond this venue: its trust and history.
    public var device = DeviceStanding()

    /// `init(...)`: checks that there is one local hour per sample.
    public init(
        id: String, deviceID: String, samples: SessionSamples, localHours: [LocalHour], modelOffsetDB: Double = 0,
        exclusionReasons: [JudgementReason] = [], forcedInclusion: Bool = false, spectra: SpectralSamples? = nil,
        phoneClasses: PhoneClassWindows? = nil
    ) throws(SessionSamplesError) {
        guard localHours.count == samples.count else {
            throw .lengthMismatch(field: "localHours", expected: samples.count, actual: localHours.count)
        }
        if let spectra, spectra.count != samples.count {
            throw .lengthMismatch(field: "spectra", expected: samples.count, actual: spectra.count)
        }
        self.id = id
        self.deviceID = deviceID
        self.samples = samples
        self.spectra = spectra
        self.phoneClasses = phoneClasses
        self.localHours = localHours
        self.summary = nil
        self.modelOffsetDB = modelOffsetDB
        self.exclusionReasons = exclusionReasons
        self.forcedInclusion = forcedInclusion
    }

    /// A check-in already cleaned: judged from its stored ``CleaningSummary``.
    public init(
        id: String, deviceID: String, summary: CleaningSummary, modelOffsetDB: Double = 0,
        exclusionReasons: [JudgementReason] = [],
        forcedInclusion: Bool = false
    ) {
        self.id = id
        self.deviceID = deviceID
        // Any empty series: never cleaned, since `summary` stands for the cleaning.
        self.samples = try! SessionSamples(offsetsSeconds: [], averageDBFS: [], peakDBFS: [])
        self.spectra = nil
        self.phoneClasses = nil
        self.localHours = []
        self.summary = summary
        self.modelOffsetDB = modelOffsetDB
        self.exclusionReasons = exclusionReasons
        self.forcedInclusion = forcedInclusion
    }
}
