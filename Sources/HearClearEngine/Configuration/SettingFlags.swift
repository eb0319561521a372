import Configuration

/// Flags made from the settings' declarations (``Setting``): `--port 8080`, `--port=8080`, and a
/// `.flag` setting alone (`--admin-secure-cookie`) or with `=true`/`=false`.
public enum SettingFlags {
    /// The values of `arguments`, each checked against its setting's kind.
    public static func values(_ arguments: [String], settings: [Setting]) throws(SettingFlagError)
        -> [AbsoluteConfigKey: ConfigValue]
    {
        let byFlag = Dictionary(settings.map { ($0.flag, $0) }, uniquingKeysWith: { first, _ in first })
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard name.hasPrefix("--"), let setting = byFlag[name] else {
                throw SettingFlagError("unknown option or argument '\(argument)' (--help lists the settings)")
            }
            var text: String
            if parts.count == 2 {
                text = String(parts[1])
            } else if setting.kind == .flag {
                text = "true"
            } else {
                guard index < arguments.endIndex else { throw SettingFlagError("\(name) needs a value") }
                text = arguments[index]
                index += 1
            }
            guard let value = setting.value(text) else {
                let expected =
                    switch setting.kind {
                    case .integer: "an integer"
                    case .number: "a number"
                    case .flag: "true or false"
                    case .text: "text"
                    }
                throw SettingFlagError("\(name) must be \(expected), not '\(text)'")
            }
            values[setting.configKey] = value
        }
        return values
    }
}

/// A flag that is not a setting, lacks its value, or has a value of the wrong kind.
public struct SettingFlagError: Error, CustomStringConvertible, Equatable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
