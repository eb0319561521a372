/// A change to what the read endpoints answer, NOTIFYed (on the Store's channel) in the transaction that
/// makes it, so that it is heard when (and only when) the change commits: by triggers on `bands`
/// and `venues` (migration 0006), and by the aggregation worker for the venues whose cells it
/// wrote. Every server instance LISTENs and drops its cached answers for exactly what is named
/// (docs/ARCHITECTURE.md, "Reads and their cache").
public enum ReadChange: Sendable, Hashable {
    /// A venue's document or grid: its details, check-ins or cells changed.
    case venue(externalID: String)
    /// The bands: every label, so every answer.
    case bands

    /// What a venue's payload starts with (migration 0006's trigger writes it too).
    public static let venuePrefix = "venue:"

    /// `venue:<external id>` or `bands` (an external id may hold colons: only the prefix is cut).
    public var payload: String {
        switch self {
        case .venue(let externalID): Self.venuePrefix + externalID
        case .bands: "bands"
        }
    }

    /// The change a payload names; `nil` for one this version does not know.
    public init?(payload: String) {
        if payload == "bands" {
            self = .bands
        } else if payload.hasPrefix(Self.venuePrefix) {
            self = .venue(externalID: String(payload.dropFirst(Self.venuePrefix.count)))
        } else {
            return nil
        }
    }
}
