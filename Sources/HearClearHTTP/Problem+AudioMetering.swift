import AudioMetering
import Foundation

extension Problem {
    /// The problem document of audio that cannot be metered; libsndfile's own words go in `detail`.
    ///
    /// Bytes libsndfile cannot open at all are 415 (RFC 9110 allows 415 for a format found by
    /// inspecting the data); a file that opens but fails part-way is 422. Audio longer than the
    /// limit is 422, not 413: its bytes were within the size limit and were read, and what breaks
    /// the rule is a property of the content, like too many samples in a check-in.
    public init(_ error: AudioMeteringError) {
        switch error {
        case .unreadable(let message):
            self.init(
                .unsupportedMediaType, type: "unreadable-audio", title: "The audio could not be read",
                detail: "libsndfile: \(message)")
        case .decodingFailed(let message):
            self.init(
                .unprocessableContent, type: "corrupt-audio", title: "The audio could not be decoded",
                detail: "libsndfile: \(message)")
        case .tooLong(let durationSeconds, let limitSeconds):
            self.init(
                .unprocessableContent, type: "audio-too-long", title: "The audio is too long",
                detail: String(
                    format:
                        "the audio lasts at least %.1f s; at most %.0f s (%@) can be metered at once, so send it in pieces",
                    durationSeconds, limitSeconds,
                    limitSeconds >= 3600
                        ? String(format: "%g hours", limitSeconds / 3600)
                        : String(format: "%g minutes", limitSeconds / 60)))
        case .tooLarge(let bytes, let limitBytes, let buffered):
            self.init(
                .contentTooLarge, type: "too-large", title: "The request body is too large",
                detail: buffered
                    ? "the body is at least \(bytes) bytes; a recording in a format read whole (anything but WAV, "
                        + "AIFF, AU, W64, RF64 and FLAC sent without Content-Encoding, which are metered as they "
                        + "arrive) may be at most \(limitBytes) bytes (\(AudioUploads.describe(bytes: limitBytes)))"
                    : "the body is at least \(bytes) bytes; at most \(limitBytes) bytes "
                        + "(\(AudioUploads.describe(bytes: limitBytes))) can be metered at once")
        }
    }
}
