import AudioMetering

/// Per-second levels of an audio file in the v2 check-in sample shape (`unit`, samples with
/// `average` = RMS and `peak`, A-weighted alongside), with the file's format and what became of
/// its trailing partial second. The body of `POST /api/v2/meter` and of `hearclear meter --json`.
public struct MeterReport: Encodable, Sendable {
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
    }

    public struct Format: Encodable, Sendable {
        /// libsndfile's names, e.g. "WAV (Microsoft)" and "Signed 16 bit PCM".
        public var name: String
        public var encoding: String
        public var sampleRate: Int
        public var channels: Int
        public var frames: Int
        public var durationSeconds: Double
    }

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

    /// Levels are rounded to 0.01 dB; `start` gives every sample its `t`, in `start`'s own offset.
    public init(_ metered: MeteredAudio, start: RFC3339.Timestamp? = nil) {
        func centi(_ value: Double) -> Double { (value * 100).rounded() / 100 }
        samples = metered.samples.map { sample in
            Sample(
                t: start.map {
                    RFC3339.format(
                        secondsSince1970: $0.secondsSince1970 + Double(sample.offsetSeconds),
                        offsetMinutes: $0.offsetMinutes)
                },
                offset: sample.offsetSeconds, average: centi(sample.averageDBFS), peak: centi(sample.peakDBFS),
                aWeighted: centi(sample.aWeightedDBFS))
        }
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
