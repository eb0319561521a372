import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel
import HearClearStore

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List devices, and exclude or include one in every aggregate.",
        subcommands: [List.self, Exclude.self, Include.self]
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
