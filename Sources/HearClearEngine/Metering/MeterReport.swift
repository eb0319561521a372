import AudioMetering

/// Per-second levels of an audio file in the v2 check-in sample shape (`unit`, samples with
/// `average` = RMS and `peak`, A-weighted, `lceq` and `bands` alongside), with the
/// file's format, what became of its trailing partial second, and what kind of sound it holds
/// (`character`). The body of `POST /api/v2/meter` and of `hearclear meter --json`.
public struct MeterReport: Encodable, Sendable {
    /// One second's levels, in a check-in sample's shape.
    public struct Sample: Encodable, Sendable {
        /// RFC 3339 time of the second's start; only when the recording's start is known.
        public var t: String?
        /// Seconds from the start of the file.
        public var offset: Int
        /// RMS level, dBFS (mean square pooled over all channels).
        public var average: Double
        /// Largest absolute sample, dBFS.
        public var peak: Double
        /// RMS level after IEC 61672 A-weighting, dBFS.
        public var aWeighted: Double
        /// RMS level after IEC 61672 C-weighting (the second's LCeq), dBFS: a check-in sample's `lceq`.
        public var lceq: Double
        /// Unweighted third-octave levels, dBFS, keyed by nominal centre ("50" … "10000"), the bands
        /// below Nyquist only: a check-in sample's `bands`. FFT approximations, not IEC 61260 filters.
        public var bands: [String: Double]
    }

    /// What kind of sound the recording holds: ~10 s windows labelled by the AudioSet model
    /// (`AudioMetering.LearnedCharacterRules`, with its top classes) or, without it, by
    /// `AudioMetering.SoundCharacterRules`, each with its reason and the features behind it, and a
    /// summary.
    public struct Character: Encodable, Sendable {
        /// What a window's label was decided from: its level and its spectral features.
        public struct Features: Encodable, Sendable {
            /// The window's LAeq, dBFS.
            public var laeq: Double
            public var lcMinusLa: Double
            public var lowFrequencyExcess: Double?
            public var flatness: Double?
            public var flux: Double?
            public var lowEnergyShare: Double?
            public var modulationRatio: Double?
            public var modulationDepth: Double?

            /// Every key, null when the window cannot give the feature.
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(laeq, forKey: .laeq)
                try container.encode(lcMinusLa, forKey: .lcMinusLa)
                try container.encode(lowFrequencyExcess, forKey: .lowFrequencyExcess)
                try container.encode(flatness, forKey: .flatness)
                try container.encode(flux, forKey: .flux)
                try container.encode(lowEnergyShare, forKey: .lowEnergyShare)
                try container.encode(modulationRatio, forKey: .modulationRatio)
                try container.encode(modulationDepth, forKey: .modulationDepth)
            }

            enum CodingKeys: String, CodingKey {
                case laeq, lcMinusLa, lowFrequencyExcess, flatness, flux, lowEnergyShare, modulationRatio,
                    modulationDepth
            }
        }

        /// An AudioSet class and its mean probability over the window.
        public struct ClassScore: Encodable, Sendable {
            public var label: String
            public var score: Double
        }

        /// One window of the recording: where it is, its label, why, and the evidence behind it.
        public struct Window: Encodable, Sendable {
            /// First second of the window, from the start of the file.
            public var offset: Int
            public var seconds: Int
            /// `babble`, `music`, `bass_heavy_music`, `steady_noise`, `quiet` or `uncertain`.
            public var label: String
            /// The rule that decided, with the values it compared.
            public var reason: String
            public var features: Features
            /// The model's five best AudioSet classes, best first; empty when the rules decided.
            public var top: [ClassScore]
        }

        /// What labelled the windows: `yamnet-w8a8` (the AudioSet model) or `spectra-rules`.
        public var classifier: String

        /// Nominal length of a window; the last one takes a rest under half of it.
        public var windowSeconds: Int
        /// Share of the windows' seconds per label, every label present.
        public var shares: [String: Double]
        /// Median of the seconds' C- minus A-weighted level, dB; null without seconds.
        public var medianLcMinusLa: Double?
        public var windows: [Window]

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(classifier, forKey: .classifier)
            try container.encode(windowSeconds, forKey: .windowSeconds)
            try container.encode(shares, forKey: .shares)
            try container.encode(medianLcMinusLa, forKey: .medianLcMinusLa)
            try container.encode(windows, forKey: .windows)
        }

        enum CodingKeys: String, CodingKey {
            case classifier, windowSeconds, shares, medianLcMinusLa, windows
        }
    }

    /// The file's format as libsndfile read it: name, encoding, rate, channels and length.
    public struct Format: Encodable, Sendable {
        /// libsndfile's names, e.g. "WAV (Microsoft)" and "Signed 16 bit PCM".
        public var name: String
        public var encoding: String
        public var sampleRate: Int
        public var channels: Int
        public var frames: Int
        public var durationSeconds: Double
    }

    /// The audio after the last whole second: how long it is, and whether it was metered.
    public struct TrailingPartialSecond: Encodable, Sendable {
        /// `none`, `included` or `dropped`.
        public var handling: String
        /// Length of the audio after the last whole second.
        public var seconds: Double
        public var note: String
    }

    public var unit = "dbfs"
    public var format: Format
    public var samples: [Sample]
    public var trailingPartialSecond: TrailingPartialSecond
    public var character: Character

    /// Levels and features in dB are rounded to 0.01 dB, shares and depths to 0.001; `start` gives
    /// every sample its `t`, in `start`'s own offset.
    public init(_ metered: MeteredAudio, start: RFC3339.Timestamp? = nil) {
        func centi(_ value: Double) -> Double { (value * 100).rounded() / 100 }
        func milli(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        samples = metered.samples.map { sample in
            Sample(
                t: start.map {
                    RFC3339.format(
                        secondsSince1970: $0.secondsSince1970 + Double(sample.offsetSeconds),
                        offsetMinutes: $0.offsetMinutes)
                },
                offset: sample.offsetSeconds, average: centi(sample.averageDBFS), peak: centi(sample.peakDBFS),
                aWeighted: centi(sample.aWeightedDBFS), lceq: centi(sample.cWeightedDBFS),
                bands: Dictionary(
                    uniqueKeysWithValues: zip(ThirdOctaveBands.nominalCentresHz, sample.bandsDBFS).compactMap {
                        centre, level in level.map { (String(centre), centi($0)) }
                    }))
        }
        let character = metered.character
        self.character = Character(
            classifier: character.classifier, windowSeconds: SoundCharacter.windowSeconds,
            shares: Dictionary(uniqueKeysWithValues: character.shares.map { ($0.key.rawValue, milli($0.value)) }),
            medianLcMinusLa: character.medianLcMinusLaDB.map(centi),
            windows: character.windows.map { window in
                let f = window.features
                return Character.Window(
                    offset: window.offsetSeconds, seconds: window.seconds, label: window.label.rawValue,
                    reason: window.reason,
                    features: Character.Features(
                        laeq: centi(f.laeqDBFS), lcMinusLa: centi(f.lcMinusLaDB),
                        lowFrequencyExcess: f.lowFrequencyExcessDB.map(centi), flatness: f.flatnessDB.map(centi),
                        flux: f.fluxDB.map(centi), lowEnergyShare: f.lowEnergyShare.map(milli),
                        modulationRatio: f.modulationRatioDB.map(centi), modulationDepth: f.modulationDepth.map(milli)),
                    top: window.topClasses.map { Character.ClassScore(label: $0.name, score: milli($0.score)) })
            })
        let f = metered.format
        format = Format(
            name: f.formatName, encoding: f.encodingName, sampleRate: f.sampleRate, channels: f.channelCount,
            frames: f.frameCount, durationSeconds: (f.durationSeconds * 1000).rounded() / 1000)
        trailingPartialSecond = Self.describe(metered.trailingPartialSecond)
    }

    static func describe(_ trailing: AudioMetering.TrailingPartialSecond) -> TrailingPartialSecond {
        let minimum = AudioMetering.TrailingPartialSecond.minimumIncludedSeconds
        switch trailing {
        case .none:
            return .init(handling: "none", seconds: 0, note: "the audio is a whole number of seconds")
        case .included(let seconds):
            let rounded = (seconds * 1000).rounded() / 1000
            return .init(
                handling: "included", seconds: rounded,
                note:
                    "the last \(rounded) s is metered as one more sample over its own length (a part of \(minimum) s or more is kept)"
            )
        case .dropped(let seconds):
            let rounded = (seconds * 1000).rounded() / 1000
            return .init(
                handling: "dropped", seconds: rounded,
                note: "the last \(rounded) s is shorter than \(minimum) s and is not metered")
        }
    }
}
