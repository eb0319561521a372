import ArgumentParser
import AudioMetering
import Foundation
import HearClearCLI
import HearClearModel

/// `hearclear calibrate tone FILE --reference-db 94`: a phone's offset from its recording of a
/// sound calibrator, measured here; no server, nothing written.
struct CalibrateTone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tone",
        abstract: "Measure a phone's offset from its recording of a sound calibrator's tone.",
        discussion: """
            Hold the calibrator over the phone's microphone, record at least a few seconds of its tone \
            (e.g. 94 dB SPL at 1 kHz, or 250 Hz), and give the recording and the calibrator's level. The \
            file is decoded with libsndfile (any format and rate it reads; channels pooled as by `meter`). \
            The tone is found in an FFT (KissFFT, one-second frames, Hamming window, the strongest bin \
            from 20 Hz up, interpolated between bins); its level is the power in its peak, in dBFS (a \
            full-scale sine reads -3.01, like `meter`'s RMS), and the offset is reference - level: what \
            to add to this phone's dBFS to get dB SPL.

            The recording is refused, with exit status 1 and what it holds instead, unless it is one \
            clean, steady tone: at least 2 s long, above -90 dBFS, no second peak holding 1 % of the \
            power (two tones, a chord, music), the tone 20 dB above everything else, and every second's \
            tone level within ±0.5 dB of their median. Trim the moments of putting the calibrator on \
            and taking it off.

            Without --json it prints a short report; --json prints the same document as \
            POST /api/v2/calibrations/tone. Applying the offset to a phone model is an admin act: \
            --apply-to MODEL records it as a reference calibration of that model in the database \
            (DATABASE_URL, else the embedded cluster of --data-dir) and refits the offsets in force, \
            which queues the venues whose check-ins they change.

            Examples:
              hearclear calibrate tone calibrator.wav --reference-db 94
              hearclear calibrate tone calibrator.flac --reference-db 114 --json
              hearclear calibrate tone calibrator.wav --reference-db 94 --apply-to "Pixel 7"
            """
    )

    /// Far longer than any calibration, so that a whole session can still be looked at.
    static let maxDuration = Duration.seconds(3600)

    @Argument(help: "The recording of the calibrator.", completion: .file())
    var file: String

    @Option(help: "The calibrator's level in dB SPL (40 to 140), e.g. 94 or 114.")
    var referenceDb: Double

    @Flag(help: "Print the v2 JSON answer instead of a report.")
    var json = false

    @Option(help: "Record the offset as a reference calibration of this phone model (as phones send it) and refit.")
    var applyTo: String?

    @OptionGroup var options: ServerOptions

    func validate() throws {
        let range = ToneCalibration.referenceRangeDB
        if let applyTo, applyTo.isEmpty || applyTo.count > 64 {
            throw ValidationError("--apply-to must be a phone model of 1 to 64 characters")
        }
        guard referenceDb.isFinite, range.contains(referenceDb) else {
            throw ValidationError(
                "--reference-db must be the calibrator's level in dB SPL, from \(Int(range.lowerBound)) to \(Int(range.upperBound))"
            )
        }
    }

    func run() async throws {
        let audio: Data
        do {
            audio = try Data(contentsOf: URL(fileURLWithPath: file), options: .mappedIfSafe)
        } catch {
            throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
        }
        let result: ToneCalibrationResult
        do throws(ToneCalibrationError) {
            result = try ToneCalibration.measure(audio, referenceDB: referenceDb, maxDuration: Self.maxDuration)
        } catch {
            switch error {
            case .audio(let audioError):
                throw CommandFailure("cannot calibrate with \(file): \(Meter.describe(audioError))")
            case .noTone(let reason):
                throw CommandFailure("no clean calibration tone in \(file): \(reason)")
            }
        }
        if json {
            print(try MeterJSON.encode(ToneCalibrationReport(result)))
        } else {
            print(Self.report(result, fileName: file), terminator: "")
        }
        if let applyTo {
            let detail = try MeterJSON.encode(ToneCalibrationReport(result))
            let (id, applied) = try await DatabaseSession.run(options) { engine, _ in
                try await engine.calibrator.recordReference(
                    model: applyTo, method: .tone, absoluteOffsetDB: result.offsetDB, detail: detail, by: "cli")
            }
            FileHandle.standardError.write(
                Data(
                    ("Recorded tone calibration \(id) of \(applyTo); "
                        + (applied.map { "fit \($0.fitID) queued \($0.queuedVenues) venue(s)." }
                            ?? "another instance is fitting: it takes effect at the next fit.") + "\n").utf8))
        }
    }

    static func report(_ result: ToneCalibrationResult, fileName: String) -> String {
        let levels = result.secondLevelsDBFS.map { String(format: "%.2f", $0) }.joined(separator: " ")
        return """
            \(fileName): \(String(format: "%.3f", result.seconds)) s
            tone       \(String(format: "%.1f Hz", result.frequencyHz))
            level      \(String(format: "%.2f dBFS", result.levelDBFS))
            SNR        \(String(format: "%.1f dB", result.snrDB))
            reference  \(String(format: "%.2f dB SPL", result.referenceDB))
            offset     \(String(format: "%.2f dB", result.offsetDB)) (reference - level: add it to this phone's dBFS)
            per second \(levels) dBFS

            """
    }
}
