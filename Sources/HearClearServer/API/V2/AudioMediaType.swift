import HearClearHTTP
import Hummingbird

/// The media types `POST /api/v2/meter` accepts. libsndfile tells the real format from the bytes
/// themselves, so the type only turns away bodies that are plainly not audio (JSON, forms, text).
enum AudioMediaType {
    static let accepted = [
        "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave", "audio/flac", "audio/x-flac", "audio/ogg",
        "audio/mpeg", "audio/mp3", "application/octet-stream",
    ]

    /// Throws a 415 problem, with `Accept` listing the accepted types, unless the type is one of
    /// them (parameters and case ignored). A missing type is taken as `application/octet-stream`,
    /// as RFC 9110 §8.3 allows.
    static func check(_ contentType: String?) throws {
        let mediaType =
            (contentType ?? "").split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard !mediaType.isEmpty, !accepted.contains(mediaType) else { return }
        throw Problem(
            .unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
            detail: "send the audio file as one of \(accepted.joined(separator: ", ")), not \(contentType ?? "")",
            headers: [.accept: accepted.joined(separator: ", ")]
        )
    }
}
