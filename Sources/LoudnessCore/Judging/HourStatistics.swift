/// The statistics of one check-in within one venue-local hour
/// (docs/ARCHITECTURE.md, "Cleaning a check-in"), in dBFS.
///
/// Exceedance levels are percentiles of the kept per-second averages: L10 (exceeded 10 % of the
/// time) = 90th percentile, L50 = median, L90 = 10th percentile, by linear interpolation
/// (``RobustStatistics/percentile(_:_:)``, numpy's default).
public struct HourStatistics: Sendable, Equatable {
    /// A piece of an hour with fewer valid seconds than this does not count in its cell.
    public static let minimumValidSeconds = 10

    /// The venue-local weekday and hour.
    public let localHour: LocalHour
    /// Energetic mean `10·log10(mean(10^(L/10)))` of the kept averages.
    public let leqDBFS: Double
    /// Level exceeded 10 % of the time (90th percentile).
    public let l10DBFS: Double
    /// Level exceeded 50 % of the time (median).
    public let l50DBFS: Double
    /// Level exceeded 90 % of the time (10th percentile).
    public let l90DBFS: Double
    /// Highest per-second peak among the kept seconds.
    public let maxPeakDBFS: Double
    /// Number of kept seconds in this hour.
    public let validSeconds: Int
    /// The piece's sound character, over the same kept seconds; nil when the check-in carries
    /// neither LCeq, bands nor its phone's own classes.
    public let character: PieceCharacter?

    /// `countsInCell`: true when ``validSeconds`` ≥ ``minimumValidSeconds`` (10); otherwise the
    /// piece is reported (for the admin view) but must not enter cell estimation.
    public var countsInCell: Bool { validSeconds >= Self.minimumValidSeconds }

    /// `perHour(samples:kept:localHours:)`: one entry per local hour that has at least one kept
    /// second, in order of each hour's first kept second. `kept` and `localHours` need one entry
    /// per sample (e.g. ``CleanedSession/kept`` and ``VenueClock/localHours(start:offsetsSeconds:)``).
    /// Hours under 10 kept seconds are included with ``countsInCell`` false; hours with no kept
    /// second are omitted.
    /// With `spectra` (the check-in's LCeq and bands), each piece also gets its ``character``
    /// from the same kept seconds, labelled by `rules`; with `phoneClasses` (the phone's own),
    /// too, those winning where they decide (``PieceCharacter/init(members:samples:spectra:phoneClasses:rules:)``).
    public static func perHour(
        samples: SessionSamples,
        kept: [Bool],
        localHours: [LocalHour],
        spectra: SpectralSamples? = nil,
        phoneClasses: PhoneClassWindows? = nil,
        rules: SecondCharacterRules = SecondCharacterRules()
    ) throws(SessionSamplesError) -> [HourStatistics] {
        guard kept.count == samples.count else {
            throw .lengthMismatch(field: "kept", expected: samples.count, actual: kept.count)
        }
        guard localHours.count == samples.count else {
            throw .lengthMismatch(field: "localHours", expected: samples.count, actual: localHours.count)
        }
        if let spectra, spectra.count != samples.count {
            throw .lengthMismatch(field: "spectra", expected: samples.count, actual: spectra.count)
        }
        let carriesCharacter = spectra != nil || phoneClasses != nil
        return pieces(kept: kept, localHours: localHours).compactMap { hour, indices in
            summarise(
                hour, averages: indices.map { samples.averageDBFS[$0] },
                peaks: indices.map { samples.peakDBFS[$0] },
                character: carriesCharacter
                    ? PieceCharacter(
                        members: indices, samples: samples, spectra: spectra, phoneClasses: phoneClasses, rules: rules)
                    : nil
            )
        }
    }

    /// `pieces(kept:localHours:)`: the kept sample indexes of each venue-local hour, in order of
    /// each hour's first kept second (hours without a kept second left out): the pieces
    /// ``perHour(samples:kept:localHours:spectra:rules:)`` summarises.
    public static func pieces(kept: [Bool], localHours: [LocalHour]) -> [(hour: LocalHour, members: [Int])] {
        var order: [LocalHour] = []
        var members: [LocalHour: [Int]] = [:]
        for index in kept.indices where kept[index] {
            let hour = localHours[index]
            if members[hour] == nil { order.append(hour) }
            members[hour, default: []].append(index)
        }
        return order.map { ($0, members[$0] ?? []) }
    }

    private static func summarise(
        _ hour: LocalHour, averages: [Double], peaks: [Double], character: PieceCharacter?
    ) -> HourStatistics? {
        let sorted = averages.sorted()
        guard let leq = Level.energeticMean(sorted),
            let l10 = RobustStatistics.percentile(sorted: sorted, 90),
            let l50 = RobustStatistics.percentile(sorted: sorted, 50),
            let l90 = RobustStatistics.percentile(sorted: sorted, 10),
            let maxPeak = peaks.max()
        else { return nil }
        return HourStatistics(
            localHour: hour, leqDBFS: leq, l10DBFS: l10, l50DBFS: l50, l90DBFS: l90,
            maxPeakDBFS: maxPeak, validSeconds: averages.count, character: character)
    }

    /// `init(localHour:leqDBFS:l10DBFS:l50DBFS:l90DBFS:maxPeakDBFS:validSeconds:character:)`:
    /// memberwise, e.g. to rebuild stored rows.
    public init(
        localHour: LocalHour, leqDBFS: Double, l10DBFS: Double, l50DBFS: Double, l90DBFS: Double,
        maxPeakDBFS: Double, validSeconds: Int, character: PieceCharacter? = nil
    ) {
        self.localHour = localHour
        self.leqDBFS = leqDBFS
        self.l10DBFS = l10DBFS
        self.l50DBFS = l50DBFS
        self.l90DBFS = l90DBFS
        self.maxPeakDBFS = maxPeakDBFS
        self.validSeconds = validSeconds
        self.character = character
    }
}
