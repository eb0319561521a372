/// What kind of loud a measured cell is (docs/ARCHITECTURE.md, "Sound character"), pooled over
/// the kept seconds of its counted check-ins that carry LCeq, bands or the phone's own classes.
public struct CellCharacter: Sendable, Equatable {
    /// A cell gets a character from at least this many seconds …
    public static let minimumSeconds = 60
    /// … of at least this many check-ins. *Why:* 60 s are six windows, so no one share rests on a
    /// single window; two check-ins, because one phone in one spot for a few minutes (beside the
    /// speaker, in a quiet corner) is not yet the hour.
    public static let minimumCheckins = 2

    /// The seconds behind it.
    public var seconds: Int
    /// The check-ins behind it.
    public var checkins: Int
    /// Seconds in windows of each label, in ``SoundClass/allCases`` order; they add up to ``seconds``.
    public var classSeconds: [Int]
    /// Median of the seconds' LC − LA (Python's `statistics.median`), dB; nil when none of them
    /// carried LCeq.
    public var lcMinusLaDB: Double?
    /// The level exceeded by 90 % of the seconds (their 10th percentile, linear interpolation as
    /// numpy's default), each second with its device's offset: model-corrected dBFS like the
    /// cell's level.
    public var la90DBFS: Double
    /// Of ``seconds``, those whose class the phones' own classes gave (``PieceCharacter/phoneSeconds``).
    public var phoneSeconds: Int

    public init(
        seconds: Int, checkins: Int, classSeconds: [Int], lcMinusLaDB: Double?, la90DBFS: Double,
        phoneSeconds: Int = 0
    ) {
        self.seconds = seconds
        self.checkins = checkins
        self.classSeconds = classSeconds
        self.lcMinusLaDB = lcMinusLaDB
        self.la90DBFS = la90DBFS
        self.phoneSeconds = phoneSeconds
    }

    /// What the classes rest on: the phones' classes, the spectra rules or both.
    public var basis: CharacterBasis {
        phoneSeconds == 0 ? .spectraRules : phoneSeconds >= seconds ? .phoneClasses : .both
    }

    /// Share of the seconds in windows of `label`, 0 … 1.
    public func share(of label: SoundClass) -> Double {
        seconds > 0 ? Double(classSeconds[label.index]) / Double(seconds) : 0
    }

    /// The character of a cell from its counted pieces that carry it, each with its device's
    /// offset; nil under ``minimumSeconds`` or ``minimumCheckins``.
    public static func pooled(_ pieces: [(piece: PieceCharacter, modelOffsetDB: Double)]) -> CellCharacter? {
        let seconds = pieces.reduce(0) { $0 + $1.piece.seconds }
        guard seconds >= minimumSeconds, pieces.count >= minimumCheckins else { return nil }
        var classSeconds = [Int](repeating: 0, count: SoundClass.allCases.count)
        var phoneSeconds = 0
        var levels: [Double] = []
        var differences: [Double] = []
        levels.reserveCapacity(seconds)
        for (piece, offset) in pieces {
            for (index, count) in piece.classSeconds.enumerated() { classSeconds[index] += count }
            phoneSeconds += piece.phoneSeconds
            levels += piece.levelsDdB.map { SpectralSamples.decibels($0) + offset }
            differences += piece.lcMinusLaDdB.map(SpectralSamples.decibels)
        }
        guard let la90 = RobustStatistics.percentile(levels, 10) else { return nil }
        return CellCharacter(
            seconds: seconds, checkins: pieces.count, classSeconds: classSeconds,
            lcMinusLaDB: RobustStatistics.median(differences), la90DBFS: la90, phoneSeconds: phoneSeconds)
    }
}

/// What a cell's classes rest on (docs/ARCHITECTURE.md, "The phone's own classes"): every second's
/// class from the phones' own classifiers, every one from the spectra rules, or some of each.
public enum CharacterBasis: String, Sendable, CaseIterable {
    case phoneClasses = "phone classes"
    case spectraRules = "spectra rules"
    case both
}

/// How hard talking is at a level (docs/ARCHITECTURE.md, "Sound character"): `easy` under 57 dB,
/// `raised voices` from 57 to 75 dB, `hard` above 75 dB (calibrated, as reported, rounded to
/// 0.1 dB). *Why:* from about 57 dB(A) people raise their voices to be understood (the Lombard
/// effect), and SoundPrint calls over 75 dB(A) too loud to talk.
public enum ConversationBand: String, Sendable, CaseIterable {
    case easy
    case raisedVoices = "raised voices"
    case hard

    public static let raisedFromDB = 57.0
    public static let hardAboveDB = 75.0

    public init(calibratedDB level: Double) {
        self = level < Self.raisedFromDB ? .easy : level > Self.hardAboveDB ? .hard : .raisedVoices
    }
}
