import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List devices, exclude or include one in every aggregate, or erase one.",
        subcommands: [List.self, Exclude.self, Include.self, Erase.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Devices, most recently seen first, with their bias against the crowd.",
            discussion: """
                Ids are shortened, never shown whole; use KEY with exclude/include. BIAS is the median of \
                the device's check-in levels minus their cells estimated from other devices; FLAG marks \
                |bias| > 6 dB over at least 3 such check-ins.
                """
        )

        @Flag(help: "Only excluded devices.") var excluded = false
        @Option(help: "At most this many devices.") var limit = 100
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let devices = try await DatabaseSession.run(options) { engine, _ in
                try await engine.devices.reports(excludedOnly: excluded, limit: limit)
            }
            print(DeviceTable.render(devices))
        }
    }

    struct Exclude: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Exclude a device: its check-ins leave every cell (its venues are recomputed).")

        @Argument(help: "The device's KEY from `devices list`, or its whole client id.") var id: String
        @Option(help: "Why, for other admins.") var note: String?
        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await Devices.change(id, excluded: true, note: note, options: options)
        }
    }

    struct Include: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Include an excluded device again (its venues are recomputed).")

        @Argument(help: "The device's KEY from `devices list`, or its whole client id.") var id: String
        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await Devices.change(id, excluded: false, note: nil, options: options)
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a device and everything naming it, on a person's request (docs/PRIVACY.md).",
            discussion: """
                What `DELETE /api/v2/devices/{deviceId}` does, for an operator answering a request that came \
                by mail: the device, its check-ins, its reports and its calibration are deleted, and the venues \
                it had checked in at are queued to be judged again without it. The admin's audit log records \
                the erasure (counts only, as done by "operator"). DEVICE-ID is the id as the phone sends it \
                (the person finds it in the app); it is not logged.
                """)

        @Argument(help: "The device id as the phone sends it.") var deviceID: String
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let summary = try await DatabaseSession.run(options) { engine, _ in
                try await engine.privacy.erase(deviceID: deviceID, by: "operator")
            }
            guard let summary else {
                FileHandle.standardError.write(Data("Nothing is stored about this device.\n".utf8))
                throw ExitCode.failure
            }
            print(
                "Device erased: \(summary.checkins) check-in(s), \(summary.reports) report(s), calibration "
                    + "\(summary.calibration ? "removed" : "none"); \(summary.venues) venue(s) queued to be judged again."
            )
        }
    }

    static func change(_ id: String, excluded: Bool, note: String?, options: ServerOptions) async throws {
        let change = try await DatabaseSession.run(options) { engine, _ in
            try await engine.devices.setExcluded(id, excluded: excluded, note: note)
        }
        let verb = excluded ? "excluded" : "included"
        switch change {
        case .changed(let key, let venues):
            print("Device \(key) \(verb); \(venues) venue(s) queued for recomputation.")
        case .unchanged(let key):
            print("Device \(key) was already \(verb); nothing changed.")
        case .notFound:
            FileHandle.standardError.write(Data("No device has key or client id \(id).\n".utf8))
            throw ExitCode.failure
        }
    }
}
