/// Why a file could not be metered.
public enum AudioMeteringError: Error, Sendable, Equatable {
    /// libsndfile could not open the bytes (corrupt or unsupported); carries its `sf_strerror` text.
    case unreadable(libsndfileMessage: String)
    /// libsndfile failed part-way through decoding; carries its `sf_strerror` text.
    case decodingFailed(libsndfileMessage: String)
    /// Longer than allowed: from the header, or, when the header has no length, once decoding passed the limit.
    case tooLong(durationSeconds: Double, limitSeconds: Double)
    /// More bytes than allowed (``AudioByteStream``): `buffered` when the format must be held whole
    /// (its decoder seeks), with the smaller limit that then applies.
    case tooLarge(bytes: Int, limitBytes: Int, buffered: Bool)
}
