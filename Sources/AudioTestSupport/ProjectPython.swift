import Foundation

/// The project's Python (`.venv/bin/python`, made by scripts/deps.sh with the packages tests use as
/// independent references: geojson, NumPy, ONNX Runtime), run as a child process.
public enum ProjectPython {
    /// The repository, found from this source file.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    public static var path: String { repositoryRoot + "/.venv/bin/python" }
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    public struct Failure: Error, CustomStringConvertible {
        public var status: Int32
        public var standardError: String
        public var description: String { "python exited with \(status): \(standardError)" }
    }

    /// Runs `script` with `input` on its standard input; its standard output.
    /// - Throws: ``Failure`` when it exits with a non-zero status.
    public static func run(_ script: String, input: Data) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in")
        let outputURL = directory.appendingPathComponent("out")
        let errorURL = directory.appendingPathComponent("err")
        try input.write(to: inputURL)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-c", script]
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                status: process.terminationStatus,
                standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
        }
        return try Data(contentsOf: outputURL)
    }
}
