import Foundation
import Logging

/// Writes one JSON object a line to stdout: `time`, `level`, `label`, `message` and the metadata.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (Data) -> Void

    /// - Parameter write: where lines go; stdout unless a test says otherwise.
    public init(label: String, write: @escaping @Sendable (Data) -> Void = { FileHandle.standardOutput.write($0) }) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: String] = [
            "time": RFC3339.format(Date()), "level": event.level.rawValue, "label": label,
            "message": "\(event.message)",
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            object[key] = "\(value)"
        }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        data.append(0x0A)
        write(data)
    }
}
