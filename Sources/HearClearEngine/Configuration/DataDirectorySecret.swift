import Foundation
import HearClearModel

/// A secret kept in a file of the data directory, readable by its owner only: what the server
/// generated on its first start and must find again on later ones (the admin password's hash,
/// the device key).
public enum DataDirectorySecret {
    /// The file's text, trimmed; nil when there is no such file.
    public static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Writes `text` (and a line break) to `path` with mode 0600, creating `directory` first;
    /// `otherwise` says in the error what to set instead when it cannot.
    public static func write(_ text: String, to path: String, in directory: String, otherwise: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError.invalid("cannot write \(path); set \(otherwise) instead")
        }
    }
}
