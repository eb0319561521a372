/// Request size limits (docs/ARCHITECTURE.md, "API v2 rules").
public enum BodyLimits {
    /// On the wire, after any transfer framing.
    public static let wireBytes = 1 << 20
    /// After `Content-Encoding` is undone: a gzip bomb stops here.
    public static let decompressedBytes = 8 << 20
    /// Audio (the meter, the tone calibration) is larger and not compressed further. It is all an
    /// upload to the tone calibration or the admin's uploads may hold, and all a recording sent to
    /// the meter may hold when it must be held whole: a format other than those metered as they
    /// arrive (see ``meterStreamedBytes``), or one sent gzipped. 50 MiB is about 4.5 minutes of
    /// 48 kHz stereo 16-bit PCM, 55 minutes of 128 kbit/s MP3 or Ogg Vorbis.
    public static let meterBytes = 50 << 20
    /// A recording `POST /api/v2/meter` decodes and meters as its bytes arrive (WAV, WAVEX, W64,
    /// RF64, AIFF, AU, FLAC, sent without `Content-Encoding`), never held whole: 4 GiB, about 6.2
    /// hours of 48 kHz stereo 16-bit PCM, so that ``AudioUploads/maxMeterDuration`` is the limit
    /// that usually applies.
    public static let meterStreamedBytes = 4 << 30
    /// Paths with the larger limit: the audio endpoints and the admin's calibration uploads.
    public static let largeBodyPaths: Set<String> = [
        "/api/v2/meter", "/api/v2/calibrations/tone", "/farmer/models/tone", "/farmer/models/meter",
    ]
    /// Paths whose body the handler reads as it arrives, enforcing its own limits; the body
    /// middleware collects it only to undo a `Content-Encoding`.
    public static let streamedBodyPaths: Set<String> = ["/api/v2/meter"]
}

/// Limits on uploaded audio beyond its size.
public enum AudioUploads {
    /// A byte limit in seconds of audio, for problem documents: "about 4.5 minutes of 48 kHz stereo
    /// 16-bit PCM (192,000 bytes a second), 55 minutes of 128 kbit/s MP3 or Ogg".
    public static func describe(bytes: Int) -> String {
        func duration(_ seconds: Double) -> String {
            seconds >= 5400
                ? String(format: "%.1f hours", seconds / 3600) : String(format: "%.1f minutes", seconds / 60)
        }
        return "about \(duration(Double(bytes) / 192_000)) of 48 kHz stereo 16-bit PCM, "
            + "\(duration(Double(bytes) / 16_000)) of 128 kbit/s MP3 or Ogg"
    }

    /// The longest audio metered in one request by the tone calibration and the admin's tone
    /// upload: 10 minutes, 600 s (issue 5).
    public static let maxDuration = Duration.seconds(600)
    /// The longest recording `POST /api/v2/meter` meters: 4 hours, 14,400 s (its answer holds a
    /// sample a second: about 4.5 MB of JSON an hour). Memory does not grow with the recording
    /// (issue 40).
    public static let maxMeterDuration = Duration.seconds(4 * 3600)
}
