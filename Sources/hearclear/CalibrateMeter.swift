import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel

/// `hearclear calibrate meter`: a phone model's offset from a check-in recorded beside a sound
/// level meter.
struct CalibrateMeter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meter",
        abstract: "Measure a phone model's offset from a check-in recorded beside a sound level meter.",
        discussion: """
            Record a check-in with the phone next to a sound level meter that logs its LAeq every second, \
            then give the check-in's id and the meter's log as CSV: one row a second, `time,level`, the \
            time RFC 3339 with its offset (e.g. 2026-11-21T21:03:04+11:00), the level in dB; `,`, `;` or \
            a tab between; a header row allowed. The offset is the median, over the seconds both measured \
            (at least 30), of the meter's level less the phone's per-second level: what the phone's model \
            must add to its dBFS to read dB SPL. Refused when they share too few seconds or differ by a \
            robust spread over 3 dB (they did not hear the same sound).

            --apply records it as a reference calibration of the check-in's device model and refits the \
            offsets in force (an admin act). The check-in is read from DATABASE_URL, else the embedded \
            cluster of --data-dir.

            Example:
              hearclear calibrate meter --checkin 6f1c…-… --csv meter-log.csv --apply
            """
    )

    @Option(help: "The id of the check-in recorded beside the meter.") var checkin: String
    @Option(help: "The meter's per-second log (CSV of time, level).", completion: .file()) var csv: String
    @Flag(help: "Record the offset as a reference calibration of the check-in's model and refit.") var apply = false
    @Flag(help: "Print the result as JSON.") var json = false
    @OptionGroup var options: ServerOptions

    func validate() throws {
        guard UUID(uuidString: checkin) != nil else { throw ValidationError("--checkin must be a check-in's UUID") }
    }

    func run() async throws {
        let text: String
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: csv))
            guard data.count <= 16 << 20 else { throw CommandFailure("\(csv) is over 16 MiB: not a meter's log") }
            text = String(decoding: data, as: UTF8.self)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("cannot read \(csv): \(error.localizedDescription)")
        }
        let id = UUID(uuidString: checkin) ?? UUID()
        let apply = apply
        let (calibration, recorded) = try await DatabaseSession.run(options) {
            engine, _ -> (Calibrator.MeterCalibration, (id: Int64, applied: AppliedCalibration?)?) in
            let calibration: Calibrator.MeterCalibration
            do {
                calibration = try await engine.calibrator.compareWithMeter(checkinID: id, csv: text)
            } catch let error as Calibrator.MeterCalibrationError {
                throw CommandFailure("cannot calibrate with check-in \(id): \(error)")
            }
            guard apply else { return (calibration, nil) }
            let detail = String(
                format: #"{"checkinId": "%@", "seconds": %d, "spreadDb": %.3f}"#, id.uuidString,
                calibration.result.seconds, calibration.result.spreadDB)
            let recorded = try await engine.calibrator.recordReference(
                model: calibration.model, method: .meter, absoluteOffsetDB: calibration.result.offsetDB,
                detail: detail, by: "cli")
            return (calibration, recorded)
        }
        let result = calibration.result
        if json {
            let object: [String: Any] = [
                "checkinId": id.uuidString, "model": calibration.model,
                "offsetDb": (result.offsetDB * 100).rounded() / 100,
                "seconds": result.seconds, "spreadDb": (result.spreadDB * 100).rounded() / 100,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(
                String(
                    format: "model %@: offset %.2f dB (meter − phone, median of %d shared seconds, spread %.2f dB)",
                    calibration.model, result.offsetDB, result.seconds, result.spreadDB))
        }
        if let recorded {
            FileHandle.standardError.write(
                Data(
                    ("Recorded meter calibration \(recorded.id) of \(calibration.model); "
                        + (recorded.applied.map { "fit \($0.fitID) queued \($0.queuedVenues) venue(s)." }
                            ?? "another instance is fitting: it takes effect at the next fit.") + "\n").utf8))
        }
    }
}
