import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel
import LoudnessCore

/// `hearclear calibrate models`: the phone models' offsets as the database holds them.
struct CalibrateModels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract:
            "List the phone models' offsets: the crowd fit, reference calibrations, overrides, the offset in force.",
        discussion: """
            Each model with its devices, the latest crowd fit's offset ± standard error and the co-located \
            check-ins behind it (or why it has none), its active reference calibrations, an admin's \
            override, and the offset in force with where it came from. Offsets are dB added to the \
            model's dBFS (calibrated dB = dBFS + model offset + device deviation + reference offset). \
            --fit runs a crowd fit first and applies it (servers do so every --calibration-interval); \
            venues whose offsets moved are queued for the servers' workers.
            """
    )

    @Flag(help: "Fit and apply the crowd calibration now, then list.") var fit = false
    @Flag(help: "Print the models as JSON.") var json = false
    @OptionGroup var options: ServerOptions

    func run() async throws {
        try await DatabaseSession.run(options) { engine, _ in
            if fit {
                if let applied = try await engine.calibrator.refit() {
                    let changed = applied.changedModels.isEmpty ? "none" : applied.changedModels.joined(separator: ", ")
                    FileHandle.standardError.write(
                        Data(
                            ("Fit \(applied.fitID): models whose offset changed: \(changed); devices: "
                                + "\(applied.changedDevices); venues queued: \(applied.queuedVenues).\n").utf8))
                } else {
                    FileHandle.standardError.write(Data("Another instance is fitting; listing as it stands.\n".utf8))
                }
            }
            let models = try await engine.calibrator.models()
            let latest = try await engine.calibrator.latestFit()
            if json {
                print(try Self.json(models, latest: latest))
            } else {
                print(Self.table(models, latest: latest))
            }
        }
    }

    static func table(_ models: [ModelCalibration], latest: StoredCalibrationFit?) -> String {
        var lines: [String] = []
        if let latest {
            lines.append(
                "Latest fit \(latest.id) at \(latest.fittedAt.formatted(.iso8601)): \(latest.cells) cells, "
                    + "\(latest.observations) device-cells"
                    + (latest.scaleDB.map { String(format: ", residual scale %.2f dB", $0) } ?? ""))
        } else {
            lines.append("No crowd fit yet.")
        }
        guard !models.isEmpty else { return (lines + ["No phone models."]).joined(separator: "\n") }
        let header = ["MODEL", "DEVICES", "CROWD dB", "CHECKINS", "REFERENCES", "OVERRIDE", "IN FORCE", "SOURCE"]
        let rows = models.map { model -> [String] in
            let crowd: String
            switch model.crowd {
            case .none: crowd = "-"
            case .some(let fit) where fit.status == .insufficientEvidence: crowd = "too little evidence"
            case .some(let fit):
                crowd =
                    String(format: "%+.2f", fit.offsetDB)
                    + (fit.standardErrorDB.map { String(format: " ± %.2f", $0) } ?? "")
            }
            let active = model.references.filter { $0.withdrawnAt == nil }
            return [
                model.model, String(model.devices), crowd, model.crowd.map { String($0.checkins) } ?? "-",
                active.isEmpty
                    ? "-"
                    : active.map { "\($0.method.rawValue) " + String(format: "%.1f", $0.absoluteOffsetDB) }
                        .joined(separator: ", "),
                model.override.map { String(format: "%+.2f", $0.offsetDB) } ?? "-",
                model.inForce.map { String(format: "%+.2f", $0.offsetDB) } ?? "0",
                model.inForce?.source.rawValue ?? "none",
            ]
        }
        lines += TextTable.lines(header: header, rows: rows)
        return lines.joined(separator: "\n")
    }

    static func json(_ models: [ModelCalibration], latest: StoredCalibrationFit?) throws -> String {
        let objects: [[String: Any]] = models.map { model in
            var object: [String: Any] = [
                "model": model.model, "devices": model.devices,
                "offsetInForceDb": model.inForce?.offsetDB ?? 0, "source": model.inForce?.source.rawValue ?? "none",
                "references": model.references.filter { $0.withdrawnAt == nil }.map {
                    ["id": $0.id, "method": $0.method.rawValue, "absoluteOffsetDb": $0.absoluteOffsetDB]
                        as [String: Any]
                },
            ]
            if let crowd = model.crowd {
                var fit: [String: Any] = [
                    "offsetDb": crowd.offsetDB, "checkins": crowd.checkins, "devices": crowd.devices,
                    "component": crowd.component, "anchored": crowd.anchored, "status": crowd.status.rawValue,
                ]
                if let error = crowd.standardErrorDB { fit["standardErrorDb"] = error }
                object["crowd"] = fit
            }
            if let override = model.override { object["overrideDb"] = override.offsetDB }
            return object
        }
        var body: [String: Any] = ["models": objects]
        if let latest { body["fit"] = ["id": latest.id, "cells": latest.cells, "observations": latest.observations] }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }
}
