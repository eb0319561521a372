import Foundation
import HearClearModel
import Logging
import NIOSSL
import PostgresNIO

/// Parses `DATABASE_URL` (`postgres://user:password@host:port/database?sslmode=…`, or
/// `postgres:///database?host=/socket/dir` for a Unix socket) into client settings.
public enum DatabaseURL {
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func configuration(_ string: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw Invalid(description: "DATABASE_URL must look like postgres://user:password@host:5432/database")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last }
        )
        let username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? nil : path
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            let port = components.port ?? 5432
            return .init(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password,
                database: database
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "DATABASE_URL has no host")
        }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "disable" {
        case "disable", "allow", "prefer": tls = .disable
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let mode: throw Invalid(description: "DATABASE_URL sslmode '\(mode)' is not supported")
        }
        return .init(
            host: host, port: components.port ?? 5432, username: username, password: password, database: database,
            tls: tls
        )
    }
}
