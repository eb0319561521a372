import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel
import Logging

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending migrations (Migrations/*.sql) and exit.",
        discussion: """
            Each file runs in its own transaction under an advisory lock, and is recorded with its \
            checksum; an applied file that was changed since is refused. Uses DATABASE_URL, else the \
            embedded PostgreSQL of the data directory (the running server's, or started for the duration).
            """
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        do {
            try await DatabaseSession.run(options, quietLogs: false) { _, applied in
                print(
                    applied.isEmpty ? "Nothing to apply: the database is up to date." : "Applied migrations \(applied)."
                )
            }
        } catch {
            FileHandle.standardError.write(Data("migrate failed: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
