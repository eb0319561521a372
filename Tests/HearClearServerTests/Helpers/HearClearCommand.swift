import Foundation

/// Runs the built `hearclear` executable, which `swift build` / `swift test` put beside the test binary.
enum HearClearCommand {
    struct Result: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    static var executable: URL {
        #if os(Linux)
            let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
            return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("hearclear")
        #else
            let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("hearclear")
        #endif
    }

    /// Runs `hearclear arguments…` to its end, off the concurrency pool; standard error goes
    /// through a file in `scratch` so neither pipe can fill up. `environment` is added to the
    /// test's own.
    static func run(_ arguments: [String], scratch: URL, environment: [String: String] = [:]) async throws -> Result {
        let errorsFile = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    guard FileManager.default.createFile(atPath: errorsFile.path, contents: nil) else {
                        throw CocoaError(.fileWriteUnknown)
                    }
                    let errors = try FileHandle(forWritingTo: errorsFile)
                    let output = Pipe()
                    let process = Process()
                    process.executableURL = executable
                    process.arguments = arguments
                    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
                    process.standardOutput = output
                    process.standardError = errors
                    try process.run()
                    let printed = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    try errors.close()
                    let complaints = try Data(contentsOf: errorsFile)
                    continuation.resume(
                        returning: Result(
                            status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
                            errors: String(decoding: complaints, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// A private temporary folder for a test's own files, removed afterwards.
func withScratchDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "hearclear-meter-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
