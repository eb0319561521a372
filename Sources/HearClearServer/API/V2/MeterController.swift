import AudioClassification
import AudioMetering
import Foundation
import HearClearEngine
import HearClearHTTP
import Hummingbird
import NIOPosix

/// `POST /api/v2/meter`: the per-second levels of an audio file sent as the body.
///
/// The audio lives only in this request's memory: it is decoded there and dropped with the
/// request; nothing of it reaches disk or the database.
struct MeterController {
    /// Labels the character's windows; nil: the spectra rules do.
    let model: AudioSetModel?

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("meter", use: meter)
    }

    @Sendable func meter(_ request: Request, context: AppRequestContext) async throws -> Response {
        try AudioMediaType.check(request.headers[.contentType])
        let start = try Self.start(request.uri.queryParameters.get("start"))
        // BodyLimitMiddleware has already collected the body, up to BodyLimits.meterBytes.
        let body = try await request.body.collect(upTo: BodyLimits.meterBytes)
        guard body.readableBytes > 0 else {
            throw Problem.malformed("the request body is empty; send the audio file itself as the body")
        }
        let metered = try await Self.measure(Data(buffer: body), model: model)
        return try JSONResponse.make(MeterReport(metered, start: start))
    }

    /// Decodes on NIO's blocking-work thread pool: a 10-minute file takes about a second of CPU
    /// (1.25 s for 48 kHz stereo, bands and character included) and several more with the AudioSet
    /// model (docs/ARCHITECTURE.md, "What kind of loud"), which must not hold up the tasks that
    /// serve other requests.
    static func measure(_ audio: Data, model: AudioSetModel?) async throws -> MeteredAudio {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try AudioMeter.measure(audio, maxDuration: AudioUploads.maxDuration, model: model)
            }
        } catch let error as AudioMeteringError {
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
