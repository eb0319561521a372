/// How a device's client-made id is shown: never whole, to anyone (API, admin, CLI).
public enum DeviceIdentity {
    /// The first four and last two characters (`c0ff…66`); ids of 8 or fewer show as `…`
    /// plus their last two, so no id is ever shown whole.
    public static func shortened(_ clientID: String) -> String {
        let characters = Array(clientID)
        guard characters.count > 8 else { return "…" + String(characters.suffix(min(2, max(0, characters.count - 1)))) }
        return String(characters.prefix(4)) + "…" + String(characters.suffix(2))
    }
}
