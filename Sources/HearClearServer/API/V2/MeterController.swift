import AudioClassification
import AudioMetering
import Foundation
import HearClearEngine
import HearClearHTTP
import Hummingbird

/// `POST /api/v2/meter`: the per-second levels of an audio file sent as the body.
///
/// The audio lives only in this request's memory, and only a little of it at a time: it is
/// decoded and metered as it arrives (``AudioByteStream``: WAV, WAVEX, W64, RF64, AIFF, AU and
/// FLAC keep about 1 MiB ahead of the decoder; other formats and gzipped bodies are held whole, up
/// to ``BodyLimits/meterBytes``), and dropped with the request; nothing of it reaches disk or
/// the database. A chunked upload is metered while it is still uploading, so the answer follows
/// its last chunk within the time it takes to meter the last megabyte and the last windows.
struct MeterController {
    /// Labels the character's windows; nil: the spectra rules do.
    let model: AudioSetModel?
    /// The longest recording metered.
    var maxDuration = AudioUploads.maxMeterDuration
    /// Recordings metered at once, at most.
    let slots: MeterSlots

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("meter", use: meter)
    }

    @Sendable func meter(_ request: Request, context: AppRequestContext) async throws -> Response {
        try AudioMediaType.check(request.headers[.contentType])
        let start = try Self.start(request.uri.queryParameters.get("start"))
        let declared = request.headers[.contentLength].flatMap(Int.init)
        if declared == 0 { throw Self.empty }
        let stream = AudioByteStream(
            declaredLength: declared, bufferedLimit: BodyLimits.meterBytes, streamedLimit: BodyLimits.meterStreamedBytes
        )
        let metered = try await slots.withSlot {
            try await Self.measure(stream, body: request.body, model: model, maxDuration: maxDuration)
        }
        return try JSONResponse.make(MeterReport(metered, start: start))
    }

    static let empty = Problem.malformed("the request body is empty; send the audio file itself as the body")

    /// Feeds `body` into `stream` while the meter decodes it on a thread of its own (a 10-minute
    /// file takes about a second of CPU, 1.25 s for 48 kHz stereo, and several more with the
    /// AudioSet model; the thread waits for bytes, which must not hold up the tasks that serve
    /// other requests or NIO's shared pool).
    static func measure(
        _ stream: AudioByteStream, body: RequestBody, model: AudioSetModel?, maxDuration: Duration
    ) async throws -> MeteredAudio {
        let metering = Task { try await AudioMeter.measureOnThread(stream, maxDuration: maxDuration, model: model) }
        do {
            for try await buffer in body {
                let more = try buffer.withUnsafeReadableBytes { bytes throws(AudioMeteringError) in
                    try stream.append(bytes)
                }
                guard more else { break }
                await stream.room()
            }
        } catch let error as AudioMeteringError {
            _ = await metering.result
            throw Problem(error)
        } catch {
            // The body broke off (the connection went, or its time ran out): nothing to answer with.
            stream.fail(.decodingFailed(libsndfileMessage: "the request body broke off: \(error)"))
            _ = await metering.result
            throw error
        }
        stream.finish()
        do {
            return try await metering.value
        } catch let error as AudioMeteringError {
            if stream.counts.received == 0 { throw empty }
            throw Problem(error)
        }
    }

    /// The optional `start` query parameter: when given, every sample also carries its time `t`.
    static func start(_ text: String?) throws -> RFC3339.Timestamp? {
        guard let text else { return nil }
        guard let timestamp = RFC3339.parse(text) else {
            throw Problem.malformed(
                "the start parameter must be an RFC 3339 time with an offset, e.g. 2026-11-21T21:03:04+11:00")
        }
        return timestamp
    }
}
