import AudioMetering
import Foundation
import HearClearHTTP
import Hummingbird
import NIOPosix

/// `POST /api/v2/calibrations/tone?referenceDb=94`: the offset of the phone that recorded a sound
/// calibrator, from the recording sent as the body (issue 13).
///
/// The audio is taken exactly as `POST /api/v2/meter` takes it (same media types, 50 MiB, 10
/// minutes) and, like there, lives only in this request's memory. Applying the offset to a phone
/// model is an admin act, not this endpoint's: it only measures.
struct ToneCalibrationController {
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("calibrations/tone", use: calibrate)
    }

    @Sendable func calibrate(_ request: Request, context: AppRequestContext) async throws -> Response {
        try AudioMediaType.check(request.headers[.contentType])
        let referenceDB = try Self.referenceDB(request.uri.queryParameters.get("referenceDb"))
        // BodyLimitMiddleware has already collected the body, up to BodyLimits.meterBytes.
        let body = try await request.body.collect(upTo: BodyLimits.meterBytes)
        guard body.readableBytes > 0 else {
            throw Problem.malformed(
                "the request body is empty; send the recording of the calibrator itself as the body")
        }
        let result = try await Self.measure(Data(buffer: body), referenceDB: referenceDB)
        return try JSONResponse.make(ToneCalibrationReport(result))
    }

    /// On NIO's blocking-work thread pool, as the meter: decoding and two FFT passes over a long
    /// file take CPU that must not hold up the tasks serving other requests.
    static func measure(_ audio: Data, referenceDB: Double) async throws -> ToneCalibrationResult {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try ToneCalibration.measure(audio, referenceDB: referenceDB, maxDuration: AudioUploads.maxDuration)
            }
        } catch let error as ToneCalibrationError {
            switch error {
            case .audio(let audioError): throw Problem(audioError)
            case .noTone(let reason): throw Problem.noCalibrationTone(reason)
            }
        }
    }

    /// The required `referenceDb`: the calibrator's level in dB SPL, a number in 40…140.
    static func referenceDB(_ text: String?) throws -> Double {
        let range = ToneCalibration.referenceRangeDB
        let rule =
            "the calibrator's level in dB SPL, a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))"
        guard let text else {
            throw Problem.validation([.init("referenceDb", "referenceDb is required: \(rule), e.g. 94")])
        }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value)
        else {
            throw Problem.validation([.init("referenceDb", "referenceDb must be \(rule), not '\(text)'")])
        }
        return value
    }
}

extension Problem {
    /// A recording with no clean calibrator tone: 422, with what was found instead in `detail`.
    static func noCalibrationTone(_ reason: NoToneReason) -> Problem {
        Problem(
            .unprocessableContent, type: "no-calibration-tone", title: "The recording holds no clean calibration tone",
            detail: reason.description)
    }
}
