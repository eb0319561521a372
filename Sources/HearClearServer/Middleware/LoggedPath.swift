/// A request's path as logs may show it: a device id in the path (`/api/v2/devices/{deviceId}…`,
/// v1's `/api/v1/user/{deviceID}`) is the phone's secret and is replaced by `{deviceId}`
/// (docs/PRIVACY.md).
enum LoggedPath {
    static let prefixes = ["/api/v2/devices/", "/api/v1/user/"]

    static func redacted(_ path: String) -> String {
        // v1's `user/create` names no device in its path.
        guard path != "/api/v1/user/create" else { return path }
        for prefix in prefixes where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            let tail = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
            return prefix + "{deviceId}" + tail
        }
        return path
    }
}
