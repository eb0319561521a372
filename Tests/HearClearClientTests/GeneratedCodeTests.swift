import Foundation
import Testing

/// The committed code of Sources/HearClearClient/Generated is what API/openapi.yaml generates now:
/// `scripts/generate-client.sh --check` builds swift-openapi-generator (Tools/generate-client, into
/// .build-generator: about a minute the first time, `make test` builds it before the tests),
/// generates into a temporary folder and compares.
@Suite("HearClearClient's generated code")
struct GeneratedCodeTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("is current: what API/openapi.yaml generates now", .timeLimit(.minutes(10)))
    func isCurrent() async throws {
        let (status, output) = try await Self.run(["scripts/generate-client.sh", "--check"])
        #expect(
            status == 0,
            "Sources/HearClearClient/Generated is stale or could not be checked: run make generate\n\(output)")
    }

    /// Runs a command in the repository, off the concurrency pool; its status and output (both streams).
    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let process = Process()
                    let pipe = Pipe()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                    process.arguments = arguments
                    process.currentDirectoryURL = repositoryRoot
                    process.standardOutput = pipe
                    process.standardError = pipe
                    try process.run()
                    let output = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: output, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
