/// A failure already explained to the user: printed to stderr, exit status 1.
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
