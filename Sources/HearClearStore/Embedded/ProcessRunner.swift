import Foundation
import HearClearModel

/// Runs short helper programs (initdb, id lookups) and collects their output.
enum ProcessRunner {
    struct Failure: Error, CustomStringConvertible {
        let command: [String]
        let status: Int32
        let output: String
        var description: String {
            "\(command.joined(separator: " ")) exited with status \(status): \(output.suffix(2000))"
        }
    }

    /// Runs `command` (looked up on `PATH` when not absolute), returns its stdout.
    /// Throws `Failure` with stdout and stderr when the exit status is not zero.
    @discardableResult
    static func output(_ command: [String], environment: [String: String]? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain stderr concurrently so a chatty program cannot fill the pipe and stall.
        let errorData = LockedData()
        let errorReader = Thread {
            errorData.set(stderr.fileHandleForReading.readDataToEndOfFile())
        }
        errorReader.start()
        let outData = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        let out = String(decoding: outData, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            let err = String(decoding: errorData.value, as: UTF8.self)
            throw Failure(command: command, status: process.terminationStatus, output: out + err)
        }
        return out
    }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
