import Foundation
import HearClearModel

/// One numbered file of `Migrations/`, e.g. `0001_initial.sql`.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    /// Reads `NNNN_name.sql` files in version order. Two files with one number are an error.
    public static func load(from directory: String) throws -> [Migration] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError.directoryMissing(directory)
        }
        var migrations: [Migration] = []
        for file in files where file.hasSuffix(".sql") {
            guard let separator = file.firstIndex(of: "_"), let version = Int(file[..<separator]) else {
                throw MigrationError.badFileName(file)
            }
            let sql = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            migrations.append(Migration(version: version, name: file, sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw MigrationError.duplicateVersion(previous.name, next.name)
        }
        return migrations
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case directoryMissing(String)
    case badFileName(String)
    case duplicateVersion(String, String)
    case checksumMismatch(version: Int, name: String)
    case failed(name: String, statement: String, message: String)

    public var description: String {
        switch self {
        case .directoryMissing(let directory):
            "no Migrations directory at \(directory): run from the repository or pass --resources"
        case .badFileName(let name): "migration file \(name) is not named NNNN_description.sql"
        case .duplicateVersion(let a, let b): "migrations \(a) and \(b) share a version number"
        case .checksumMismatch(let version, let name):
            "migration \(version) (\(name)) was changed after it was applied; add a new migration instead of editing an applied one"
        case .failed(let name, let statement, let message):
            "migration \(name) failed: \(message)\nin: \(statement.prefix(300))"
        }
    }
}
