import LoudnessCore

/// What kind of loud a window of a recording is: the labels the server's per-second rules give
/// too, with the same raw values (LoudnessCore's `SoundClass`, one definition for both).
public typealias SoundCharacterLabel = SoundClass

/// The features a window is judged by. All are computed from the meter's per-second levels and
/// the short frames inside the window; nil when the window cannot give one (too short, silent, a
/// band above Nyquist).
public struct SoundFeatures: Sendable, Equatable {
    /// A-weighted level of the window (energetic mean of its seconds), dBFS.
    public var laeqDBFS: Double
    /// LCeq − LAeq of the window, dB: about 0 when the sound is mostly above 500 Hz, 10 dB or more
    /// when low frequencies carry much of its energy.
    public var lcMinusLaDB: Double
    /// Mean power of the bands 50–160 Hz over the mean power of the bands 500 Hz–4 kHz, dB: 0 for
    /// pink noise, above for bass.
    public var lowFrequencyExcessDB: Double?
    /// Spectral flatness of the short frames within octaves from 250 Hz to 4 kHz, dB: about −2.5
    /// for noise, far lower for tones and harmonic sounds.
    public var flatnessDB: Double?
    /// Mean change of the speech bands' levels from one short frame to the next (20 ms on), dB RMS.
    public var fluxDB: Double?
    /// Share of short frames whose speech-band power is under half their second's mean.
    public var lowEnergyShare: Double?
    /// Envelope modulation of the speech bands at 3–6 Hz over 0.5–2.5 Hz, dB.
    public var modulationRatioDB: Double?
    /// RMS of the speech bands' relative envelope between 0.5 and 6 Hz.
    public var modulationDepth: Double?

    public init(
        laeqDBFS: Double, lcMinusLaDB: Double, lowFrequencyExcessDB: Double?, flatnessDB: Double?,
        fluxDB: Double?, lowEnergyShare: Double?, modulationRatioDB: Double?, modulationDepth: Double?
    ) {
        self.laeqDBFS = laeqDBFS
        self.lcMinusLaDB = lcMinusLaDB
        self.lowFrequencyExcessDB = lowFrequencyExcessDB
        self.flatnessDB = flatnessDB
        self.fluxDB = fluxDB
        self.lowEnergyShare = lowEnergyShare
        self.modulationRatioDB = modulationRatioDB
        self.modulationDepth = modulationDepth
    }
}

/// An AudioSet class and its mean probability over a window's patches.
public struct ClassScore: Sendable, Equatable {
    public var name: String
    public var score: Double

    public init(name: String, score: Double) {
        self.name = name
        self.score = score
    }
}

/// One window's label, the rule that gave it and the features behind it.
public struct CharacterWindow: Sendable, Equatable {
    /// First second of the window, from the start of the file.
    public var offsetSeconds: Int
    public var seconds: Int
    public var label: SoundCharacterLabel
    /// The rule that decided, with the values it compared, in words.
    public var reason: String
    public var features: SoundFeatures
    /// The model's five best classes over the window, best first; empty when the rules decided.
    public var topClasses: [ClassScore]
    /// The scores of HearClear's groups of classes that ``LearnedCharacterRules`` compared; nil
    /// when the rules decided.
    public var groupScores: LearnedCharacterRules.GroupScores?

    public init(
        offsetSeconds: Int, seconds: Int, label: SoundCharacterLabel, reason: String, features: SoundFeatures,
        topClasses: [ClassScore] = [], groupScores: LearnedCharacterRules.GroupScores? = nil
    ) {
        self.offsetSeconds = offsetSeconds
        self.seconds = seconds
        self.label = label
        self.reason = reason
        self.features = features
        self.topClasses = topClasses
        self.groupScores = groupScores
    }
}

/// The character of a whole recording: its windows and a summary.
public struct SoundCharacter: Sendable, Equatable {
    /// Windows are this long from the start of the recording; a rest under half of it joins the
    /// last window, so windows last 5 to 14 s and a recording under 10 s is one window.
    public static let windowSeconds = CharacterWindowing.windowSeconds

    /// What labelled the windows: ``rulesName``, or the AudioSet model's name
    /// (`AudioSetModel.name`) when it was loaded.
    public var classifier: String
    public var windows: [CharacterWindow]
    /// Median over the recording's seconds of LC − LA, dB; nil without seconds.
    public var medianLcMinusLaDB: Double?

    /// The classifier name of windows labelled by ``SoundCharacterRules``.
    public static let rulesName = "spectra-rules"

    public init(windows: [CharacterWindow], medianLcMinusLaDB: Double?, classifier: String = rulesName) {
        self.windows = windows
        self.medianLcMinusLaDB = medianLcMinusLaDB
        self.classifier = classifier
    }

    /// Share of the recording's seconds in windows of each label (every label present, 0 … 1).
    public var shares: [SoundCharacterLabel: Double] {
        let total = windows.reduce(0) { $0 + $1.seconds }
        var shares = Dictionary(uniqueKeysWithValues: SoundCharacterLabel.allCases.map { ($0, 0.0) })
        guard total > 0 else { return shares }
        for window in windows { shares[window.label, default: 0] += Double(window.seconds) / Double(total) }
        return shares
    }
}
