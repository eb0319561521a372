import Foundation

/// Runs `sox … stats` on WAV bytes fed through stdin (no file on disk).
enum Sox {
    struct Stats {
        var rmsDB: Double
        var peakDB: Double
    }

    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("sox") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Overall "RMS lev dB" and "Pk lev dB" of frames start ..< start + count.
    static func stats(wav: Data, startFrame: Int, frameCount: Int) throws -> Stats {
        // sox stops reading once trim is done; the unread rest must fail with EPIPE, not kill us.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-t", "wav", "-", "-n", "trim", "\(startFrame)s", "\(frameCount)s", "stats"]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()

        // Write on another thread while this one drains stderr, so neither pipe can fill up and block.
        let writer = input.fileHandleForWriting
        let written = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? writer.write(contentsOf: wav)
            try? writer.close()
            written.signal()
        }
        let report = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        written.wait()
        guard process.terminationStatus == 0, let rms = value("RMS lev dB", in: report),
            let peak = value("Pk lev dB", in: report)
        else { throw Failure(report: report) }
        return Stats(rmsDB: rms, peakDB: peak)
    }

    struct Failure: Error, CustomStringConvertible {
        let report: String
        var description: String { "sox stats failed:\n\(report)" }
    }

    /// First column (Overall for several channels) of a `stats` line.
    private static func value(_ label: String, in report: String) -> Double? {
        let line = report.split(separator: "\n").first { $0.hasPrefix(label) }
        return line.flatMap { $0.dropFirst(label.count).split(separator: " ").first }.flatMap { Double($0) }
    }
}
