import Foundation

/// Speech from espeak-ng (`make deps` installs it), read from its WAV on stdout: nothing is
/// written to disk.
enum Speech {
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("espeak-ng") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// espeak-ng's rate.
    static let sampleRate = 22050

    /// `text` spoken by `voice` (e.g. "en-us+m3") at `wordsPerMinute`, mono samples in ±1.
    static func say(_ text: String, voice: String, wordsPerMinute: Int = 160, pitch: Int = 50) throws -> [Float] {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-v", voice, "-s", "\(wordsPerMinute)", "-p", "\(pitch)", "--stdout", text]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let wav = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "espeak-ng failed for \(voice)") }
        return try pcm16(wav)
    }

    /// The 16-bit samples after the WAV's `data` chunk header (espeak-ng streams it, so its size
    /// field is not to be trusted: everything after it is taken).
    static func pcm16(_ wav: Data) throws -> [Float] {
        let bytes = [UInt8](wav)
        guard
            let start = (12..<max(12, bytes.count - 8)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("data".utf8) }
            )
        else { throw Failure(description: "no data chunk in espeak-ng's output") }
        var samples: [Float] = []
        var index = start + 8
        while index + 1 < bytes.count {
            samples.append(Float(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)) / 32768)
            index += 2
        }
        return samples
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
