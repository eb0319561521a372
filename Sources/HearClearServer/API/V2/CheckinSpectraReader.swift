import LoudnessCore

/// Reads the optional `lceq` and `bands` of a check-in's samples (docs/ARCHITECTURE.md, "API v2
/// rules"), sample by sample inside ``CheckinValidator``, into 0.1 dB integers as stored.
///
/// Sample 0 decides: it carries `lceq` or not, and a set of `bands` or none; every other sample
/// must do the same, and the first that does not is pointed at (once for `lceq`, once for
/// `bands`). Levels are dBFS whatever the check-in's `unit` (which is about `average` and `peak`),
/// in the range `average` accepts in dBFS. Band keys are the nominal centres of
/// `SpectralSamples.nominalCentresHz` (the meter's bands), 50 … 10000, as strings.
struct CheckinSpectraReader {
    static let range = CheckinValidator.dbfsRange
    static let rangeText = "must be from -200 to 20 dBFS"
    /// `"100"` → 3.
    static let bandNumbers: [String: Int] = Dictionary(
        uniqueKeysWithValues: bandKeys.enumerated().map { ($1, $0) })
    static let bandKeys = SpectralSamples.nominalCentresHz.map(String.init)
    static let bandList = bandKeys.joined(separator: ", ")

    /// Whether sample 0 carried `lceq` (nil before it is read).
    private var carriesLceq: Bool?
    /// The bands sample 0 carried, ascending numbers (nil before it is read; empty for none).
    private var bandIndexes: [Int]?
    private var lceq: [Int16] = []
    private var bands: [Int16] = []
    private var lceqReported = false
    private var bandsReported = false
    private let sampleCount: Int

    /// Nothing is allocated until sample 0 shows what the check-in carries.
    init(sampleCount: Int) {
        self.sampleCount = sampleCount
    }

    /// Reads the sample at `pointer` (`/samples/3`, the validator's).
    mutating func read(_ sample: CheckinRequest.Sample, pointer: String, rules: inout FieldRules) {
        readLceq(sample.lceq, pointer: pointer, rules: &rules)
        readBands(sample.bands, pointer: pointer, rules: &rules)
    }

    private mutating func readLceq(_ value: Double?, pointer: String, rules: inout FieldRules) {
        let carries: Bool
        if let carriesLceq {
            carries = carriesLceq
        } else {
            carries = value != nil
            carriesLceq = carries
            if carries { lceq.reserveCapacity(sampleCount) }
        }
        switch (carries, value) {
        case (true, let value?):
            if value.isFinite, Self.range.contains(value) {
                lceq.append(SpectralSamples.decidecibels(value))
            } else {
                rules.fail(pointer + "/lceq", Self.rangeText)
            }
        case (true, nil):
            if !lceqReported {
                rules.fail(pointer + "/lceq", "is required: sample 0 has an lceq, so every sample needs one")
                lceqReported = true
            }
        case (false, _?):
            if !lceqReported {
                rules.fail(pointer + "/lceq", "must be on every sample or none, and sample 0 has none")
                lceqReported = true
            }
        case (false, nil):
            break
        }
    }

    private mutating func readBands(_ levels: [String: Double]?, pointer: String, rules: inout FieldRules) {
        guard let expected = bandIndexes else {
            // Sample 0 sets the bands of the check-in.
            guard let levels else {
                bandIndexes = []
                return
            }
            if levels.isEmpty {
                rules.fail(pointer + "/bands", "must hold at least one band, or be left out")
                bandsReported = true
            }
            let unknown = unknownKeys(levels, pointer: pointer, rules: &rules)
            let indexes = levels.keys.compactMap { Self.bandNumbers[$0] }.sorted()
            bandIndexes = indexes
            bands.reserveCapacity(sampleCount * indexes.count)
            if unknown { bandsReported = true }
            readLevels(levels, pointer: pointer, rules: &rules)
            return
        }
        guard let levels else {
            if !expected.isEmpty, !bandsReported {
                rules.fail(pointer + "/bands", "is required: sample 0 has bands, so every sample needs the same ones")
                bandsReported = true
            }
            return
        }
        if expected.isEmpty {
            if !bandsReported {
                rules.fail(pointer + "/bands", "must be on every sample or none, and sample 0 has none")
                bandsReported = true
            }
            return
        }
        let same = levels.count == expected.count && expected.allSatisfy { levels[Self.bandKeys[$0]] != nil }
        guard same else {
            if !unknownKeys(levels, pointer: pointer, rules: &rules), !bandsReported {
                let names = expected.map { Self.bandKeys[$0] }.joined(separator: ", ")
                rules.fail(pointer + "/bands", "must hold the same bands as sample 0: \(names)")
            }
            bandsReported = true
            return
        }
        readLevels(levels, pointer: pointer, rules: &rules)
    }

    /// Points at every key that is not a band; true when there was one.
    private func unknownKeys(_ levels: [String: Double], pointer: String, rules: inout FieldRules) -> Bool {
        let unknown = levels.keys.filter { Self.bandNumbers[$0] == nil }.sorted()
        for key in unknown {
            rules.fail(
                pointer + "/bands/" + Self.escaped(key),
                "is not a third-octave band: use the nominal centres in Hz \(Self.bandList)")
        }
        return !unknown.isEmpty
    }

    /// Appends the levels of the expected bands, in band order.
    private mutating func readLevels(_ levels: [String: Double], pointer: String, rules: inout FieldRules) {
        for index in bandIndexes ?? [] {
            guard let value = levels[Self.bandKeys[index]] else { continue }
            if value.isFinite, Self.range.contains(value) {
                bands.append(SpectralSamples.decidecibels(value))
            } else {
                rules.fail(pointer + "/bands/" + Self.bandKeys[index], Self.rangeText)
            }
        }
    }

    /// What the check-in carries, once every sample was read without errors: LCeq, band numbers,
    /// band levels (nil for none).
    var result: (lceq: [Int16]?, bandIndexes: [Int16]?, bands: [Int16]?) {
        let indexes = bandIndexes ?? []
        return (
            carriesLceq == true ? lceq : nil, indexes.isEmpty ? nil : indexes.map { Int16($0) },
            indexes.isEmpty ? nil : bands
        )
    }

    /// RFC 6901: `~` as `~0`, `/` as `~1`.
    static func escaped(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
