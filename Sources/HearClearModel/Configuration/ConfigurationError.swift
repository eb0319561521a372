/// A setting, file or resource that stops the start (or a command) with a message naming it: the
/// engine's and the server's settings, the admin's and the pages' templates, the sound model.
public enum ConfigurationError: Error, CustomStringConvertible {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}
