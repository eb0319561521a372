import HearClearModel

/// Why the embedded PostgreSQL could not be started.
public enum EmbeddedPostgresError: Error, CustomStringConvertible {
    case binariesNotFound(String)
    case alreadyRunning(dataDirectory: String, holder: String)
    case initdbFailed(String)
    case startFailed(String)
    case userSetupFailed(String)

    public var description: String {
        switch self {
        case .binariesNotFound(let message): message
        case .alreadyRunning(let directory, let holder):
            "another hearclear server (\(holder)) is already using the data directory \(directory); stop it or choose another --data-dir"
        case .initdbFailed(let message): "initdb failed: \(message)"
        case .startFailed(let message): "the embedded PostgreSQL did not start: \(message)"
        case .userSetupFailed(let message): "cannot prepare an unprivileged user for PostgreSQL: \(message)"
        }
    }
}
