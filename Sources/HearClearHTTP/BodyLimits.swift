/// Request size limits (docs/ARCHITECTURE.md, "API v2 rules").
public enum BodyLimits {
    /// On the wire, after any transfer framing.
    public static let wireBytes = 1 << 20
    /// After `Content-Encoding` is undone: a gzip bomb stops here.
    public static let decompressedBytes = 8 << 20
    /// Audio (the meter, the tone calibration) is larger and not compressed further.
    public static let meterBytes = 50 << 20
    /// Paths with the larger limit: the audio endpoints and the admin's calibration uploads.
    public static let largeBodyPaths: Set<String> = [
        "/api/v2/meter", "/api/v2/calibrations/tone", "/farmer/models/tone", "/farmer/models/meter",
    ]
}

/// Limits on uploaded audio beyond its size.
public enum AudioUploads {
    /// The longest audio metered in one request (the meter, the tone calibration, the admin's
    /// tone upload): 10 minutes (issue 5).
    public static let maxDuration = Duration.seconds(600)
}
