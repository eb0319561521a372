import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel

struct Months: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The months of check-ins: list them, or drop the old ones (docs/OPERATIONS.md, \"Old check-ins\").",
        subcommands: [List.self, Drop.self]
    )

    /// `--keep-months`, shared by both commands.
    struct Floor: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "Always keep the current UTC month and this many before it (0 or more).",
                discussion: "A month that can still receive check-ins (up to 14 days old) is kept whatever this says."
            ))
        var keepMonths = CheckinMonths.defaultKeepMonths
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Every month of check-ins: its check-ins, first and last start, size on disk, and whether it may be dropped now."
        )

        @Flag(help: "Print the months as JSON.") var json = false
        @OptionGroup var floor: Floor
        @OptionGroup var options: ServerOptions

        func run() async throws {
            guard floor.keepMonths >= 0 else {
                throw ValidationError(CheckinMonths.Refusal.invalidKeepMonths(floor.keepMonths).description)
            }
            let now = Date()
            let months = try await DatabaseSession.run(options) { engine, _ in
                try await engine.months.list(now: now, keepMonths: floor.keepMonths)
            }
            print(json ? try MonthTable.json(months) : MonthTable.render(months))
            if !json, !months.isEmpty {
                print(
                    "\nMonths before \(CheckinMonths.latestBefore(now: now, keepMonths: floor.keepMonths)) may be dropped "
                        + "(--keep-months \(floor.keepMonths)).")
            }
        }
    }

    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop every whole month of check-ins before a month, with everything that names them.",
            discussion: """
                Each month goes in a transaction of its own, oldest first: its check-ins' ids, hourly pieces, \
                admins' decisions and queue entries, the venues' check-in counts, then the month's partition \
                (detached and dropped). Every venue that had check-ins in it is queued to be judged again \
                without them (a running server's worker does it), and the admin's audit log records each month \
                (counts only, as done by "operator"). Refused, with nothing changed, when MONTH is later than \
                the retention allows: a month that can still receive check-ins (up to 14 days old) and the \
                months kept by --keep-months stay. Cannot be undone: take a backup first.
                """)

        @Option(
            help: ArgumentHelp("Drop every month before this one (YYYY-MM, UTC).", valueName: "YYYY-MM"),
            transform: Months.month)
        var before: UTCMonth
        @Flag(help: "Print what would be dropped, and change nothing.") var dryRun = false
        @OptionGroup var floor: Floor
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let now = Date()
            let (dry, dropped): ([CheckinMonth], [CheckinMonthDrop])
            do {
                (dry, dropped) = try await DatabaseSession.run(options) { engine, _ in
                    if dryRun {
                        return (
                            try await engine.months.plan(before: before, now: now, keepMonths: floor.keepMonths), []
                        )
                    }
                    return (
                        [],
                        try await engine.months.drop(
                            before: before, now: now, keepMonths: floor.keepMonths, by: "operator")
                    )
                }
            } catch let refusal as CheckinMonths.Refusal {
                FileHandle.standardError.write(Data("Refused, nothing changed: \(refusal)\n".utf8))
                throw ExitCode.failure
            }
            if dryRun {
                guard !dry.isEmpty else {
                    print("No month before \(before) has check-ins stored: nothing would be dropped.")
                    return
                }
                print("Would drop (dry run, nothing changed):")
                print(MonthTable.render(dry.map { CheckinMonths.Entry(month: $0, mayDrop: true) }))
                return
            }
            guard !dropped.isEmpty else {
                print("No month before \(before) has check-ins stored: nothing to do.")
                return
            }
            for drop in dropped {
                print(
                    "Dropped \(drop.month): \(drop.checkins) check-in(s), \(drop.hours) hour piece(s), "
                        + "\(drop.overrides) decision(s), \(drop.queueEntries) queue entr\(drop.queueEntries == 1 ? "y" : "ies"), "
                        + "\(MonthTable.size(drop.bytes)); \(drop.venues) venue(s) queued to be judged again.")
            }
        }
    }

    /// `YYYY-MM`, or a message naming what was given.
    static func month(_ text: String) throws -> UTCMonth {
        guard let month = UTCMonth(parsing: text) else {
            throw ValidationError("'\(text)' is not a month: write YYYY-MM, such as 2025-06 (UTC, month 01 to 12).")
        }
        return month
    }
}

/// `months list` as a plain text table or JSON.
enum MonthTable {
    static func render(_ months: [CheckinMonths.Entry]) -> String {
        guard !months.isEmpty else { return "No months of check-ins." }
        let header = ["MONTH", "CHECKINS", "OLDEST START", "NEWEST START", "SIZE", "MAY DROP"]
        let rows = months.map { entry in
            [
                entry.month.month.description, String(entry.month.checkins),
                entry.month.oldestStartedAt?.formatted(.iso8601) ?? "-",
                entry.month.newestStartedAt?.formatted(.iso8601) ?? "-", size(entry.month.bytes),
                entry.mayDrop ? "yes" : "no",
            ]
        }
        return TextTable.render(header: header, rows: rows)
    }

    static func json(_ months: [CheckinMonths.Entry]) throws -> String {
        let body: [[String: Any]] = months.map { entry in
            [
                "month": entry.month.month.description, "checkins": entry.month.checkins,
                "oldestStartedAt": entry.month.oldestStartedAt.map { $0.formatted(.iso8601) as Any } ?? NSNull(),
                "newestStartedAt": entry.month.newestStartedAt.map { $0.formatted(.iso8601) as Any } ?? NSNull(),
                "bytes": entry.month.bytes, "mayDrop": entry.mayDrop,
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }

    /// Bytes as an operator reads them: 8.0 MB, 512 kB.
    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        if value >= 1e9 { return String(format: "%.1f GB", value / 1e9) }
        if value >= 1e6 { return String(format: "%.1f MB", value / 1e6) }
        return String(format: "%.0f kB", value / 1e3)
    }
}
