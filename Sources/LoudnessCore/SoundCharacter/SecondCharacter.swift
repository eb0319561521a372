import Foundation

/// One window of a check-in's kept seconds, its label and the features behind it.
public struct ClassifiedWindow: Sendable, Equatable {
    /// Sample indexes of its first and last second (kept seconds in between may be fewer than
    /// the span when cleaning removed some).
    public var firstSample: Int
    public var lastSample: Int
    public var label: SoundClass
    /// The rule that decided, with the values it compared, in words.
    public var reason: String
    public var features: SecondFeatures

    public var seconds: Int { features.seconds }

    public init(firstSample: Int, lastSample: Int, label: SoundClass, reason: String, features: SecondFeatures) {
        self.firstSample = firstSample
        self.lastSample = lastSample
        self.label = label
        self.reason = reason
        self.features = features
    }
}

/// Labels the kept seconds of a check-in that carries LCeq or bands (docs/ARCHITECTURE.md, "Sound
/// character"): its kept seconds of each venue-local hour are cut into windows of 10 (a rest under
/// 5 joins the last one, as the meter's windows; a piece under 10 s is one window), each window's
/// ``SecondFeatures`` are measured and ``SecondCharacterRules`` labels it.
public enum SecondCharacter {
    public static let windowSeconds = 10
    public static let shortestRestSeconds = 5

    /// Low and reference bands of the low-frequency excess (the meter's).
    static let lowBands = SoundCharacterThresholds.lowFrequencyBands
    static let referenceBands = SoundCharacterThresholds.lowFrequencyReferenceBands
    /// The octaves of the flatness, as three third-octave bands each: 250–500 Hz (250, 315,
    /// 400), 500–1000, 1000–2000, 2000–4000 (the meter's octaves).
    static let flatnessOctaves = [7...9, 10...12, 13...15, 16...18]

    /// The windows of `count` kept seconds, as ranges of their positions: runs of
    /// `windowSeconds`, the last one taking a rest under `shortestRestSeconds` (so windows last 5
    /// to 14 s, and fewer than 15 seconds are one window).
    public static func windowRanges(count: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        var ranges: [Range<Int>] = []
        var start = 0
        while count - start >= windowSeconds + shortestRestSeconds {
            ranges.append(start..<start + windowSeconds)
            start += windowSeconds
        }
        ranges.append(start..<count)
        return ranges
    }

    /// The windows of the kept seconds `indexes` (ascending sample indexes of one piece).
    public static func windows(
        of indexes: [Int], samples: SessionSamples, spectra: SpectralSamples,
        rules: SecondCharacterRules = SecondCharacterRules()
    ) -> [ClassifiedWindow] {
        windowRanges(count: indexes.count).map { range in
            let members = indexes[range]
            let features = features(of: members, samples: samples, spectra: spectra)
            let (label, reason) = rules.classify(features)
            return ClassifiedWindow(
                firstSample: members.first!, lastSample: members.last!, label: label, reason: reason,
                features: features)
        }
    }

    /// The windows of a whole check-in: those of each venue-local hour's kept seconds (the pieces
    /// of ``HourStatistics/pieces(kept:localHours:)``), as its cleaning counts them.
    public static func windows(
        samples: SessionSamples, kept: [Bool], localHours: [LocalHour], spectra: SpectralSamples,
        rules: SecondCharacterRules = SecondCharacterRules()
    ) -> [ClassifiedWindow] {
        HourStatistics.pieces(kept: kept, localHours: localHours).flatMap { _, members in
            windows(of: members, samples: samples, spectra: spectra, rules: rules)
        }
    }

    /// The features of the seconds `members` (ascending sample indexes).
    public static func features(of members: ArraySlice<Int>, samples: SessionSamples, spectra: SpectralSamples)
        -> SecondFeatures
    {
        let averages = members.map { samples.averageDBFS[$0] }
        let laeq = Level.energeticMean(averages) ?? -.infinity
        let lcMinusLa = spectra.lceqDBFS.flatMap { lceq in
            Level.energeticMean(members.map { lceq[$0] }).map { $0 - laeq }
        }
        var levelChanges: [Double] = []
        var shapeChanges: [Double] = []
        for (previous, next) in zip(members, members.dropFirst())
        where samples.offsetsSeconds[next] - samples.offsetsSeconds[previous] < 1.5 {
            levelChanges.append(abs(samples.averageDBFS[next] - samples.averageDBFS[previous]))
            if let shape = shapeChange(from: previous, to: next, spectra: spectra) { shapeChanges.append(shape) }
        }
        return SecondFeatures(
            seconds: members.count, bands: spectra.bandIndexes.count, laeqDBFS: laeq, lcMinusLaDB: lcMinusLa,
            lowFrequencyExcessDB: lowFrequencyExcess(members, spectra: spectra),
            flatnessDB: flatness(members, spectra: spectra), shapeFluxDB: mean(shapeChanges),
            levelFluxDB: mean(levelChanges))
    }

    /// Mean power of the low bands over that of the reference bands, dB; nil without a carried
    /// band in either.
    static func lowFrequencyExcess(_ members: ArraySlice<Int>, spectra: SpectralSamples) -> Double? {
        func meanPower(_ bands: ClosedRange<Int>) -> Double? {
            let positions = spectra.bandIndexes.indices.filter { bands.contains(spectra.bandIndexes[$0]) }
            guard !positions.isEmpty, !members.isEmpty else { return nil }
            var sum = 0.0
            for sample in members {
                for position in positions { sum += pow(10, spectra.band(position, sample: sample) / 10) }
            }
            return sum / Double(positions.count * members.count)
        }
        guard let low = meanPower(lowBands), let reference = meanPower(referenceBands), low > 0, reference > 0 else {
            return nil
        }
        return 10 * log10(low / reference)
    }

    /// Mean over seconds and octaves of each octave's flatness over its three bands (only octaves
    /// whose three bands are carried); nil without one.
    static func flatness(_ members: ArraySlice<Int>, spectra: SpectralSamples) -> Double? {
        let octaves: [[Int]] = flatnessOctaves.compactMap { octave in
            let positions = octave.compactMap { spectra.bandIndexes.firstIndex(of: $0) }
            return positions.count == octave.count ? positions : nil
        }
        guard !octaves.isEmpty, !members.isEmpty else { return nil }
        var total = 0.0
        for sample in members {
            for positions in octaves {
                // dB: the mean level less the level of the mean power (both relative to the
                // loudest band, so nothing underflows).
                let levels = positions.map { spectra.band($0, sample: sample) }
                let loudest = levels.max()!
                let meanLevel = levels.reduce(0) { $0 + ($1 - loudest) } / Double(levels.count)
                let meanPower = levels.reduce(0) { $0 + pow(10, ($1 - loudest) / 10) } / Double(levels.count)
                total += meanLevel - 10 * log10(meanPower)
            }
        }
        return total / Double(octaves.count * members.count)
    }

    /// RMS over the carried bands of each band's change from `previous` to `next` less the
    /// bands' mean change, dB; nil with fewer than 2 bands.
    static func shapeChange(from previous: Int, to next: Int, spectra: SpectralSamples) -> Double? {
        let bands = spectra.bandIndexes.count
        guard bands >= 2 else { return nil }
        var changes = [Double](repeating: 0, count: bands)
        for position in 0..<bands {
            changes[position] = spectra.band(position, sample: next) - spectra.band(position, sample: previous)
        }
        let mean = changes.reduce(0, +) / Double(bands)
        let squares = changes.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (squares / Double(bands)).squareRoot()
    }

    private static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}
