import HearClearModel

/// Something the database answered that the store's own statements should make impossible.
public enum StoreError: Error, CustomStringConvertible {
    case unexpected(String)
    public var description: String {
        switch self {
        case .unexpected(let message): message
        }
    }
}
