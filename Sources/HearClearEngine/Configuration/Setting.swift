import Configuration
import Foundation

/// One setting of the `hearclear` commands, declared once: its key, the kind of value, the
/// default as an operator writes it, whether it is secret, and what it does. The flag
/// (`--max-distance-metres`), the environment variable (`HEARCLEAR_MAX_DISTANCE_METRES`), the
/// configuration's default and the README's table of settings are all made from it.
public struct Setting: Sendable, Hashable {
    /// The kind of value a setting takes: what a value given for it is checked against.
    public enum Kind: String, Sendable {
        /// Any text (a rate `20/h`, a list `10.0.0.0/8,::1`, a URL).
        case text
        case integer
        case number
        /// A flag without a value: present means true.
        case flag
    }

    /// The configuration key, dot-separated (`hearclear.port`, `database.url`).
    public let key: String
    public let kind: Kind
    /// The default as it would be written on the command line; `nil`: unset.
    public let defaultValue: String?
    /// How the default is shown when not as written (`working directory`, `unset: embedded`).
    public let shownDefault: String?
    /// What it does, in Markdown (the README's table; `--help` drops the backticks).
    public let help: String
    /// Kept out of logs and debug output (passwords, URLs with credentials).
    public let isSecret: Bool

    /// Declares a setting: its key, kind, default as written, how that is shown, secrecy and help.
    public init(
        _ key: String, _ kind: Kind, default defaultValue: String?, shown shownDefault: String? = nil,
        secret isSecret: Bool = false, help: String
    ) {
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.shownDefault = shownDefault
        self.help = help
        self.isSecret = isSecret
    }

    /// `hearclear.http.max.age` → `HEARCLEAR_HTTP_MAX_AGE` (swift-configuration's rule).
    public var environmentVariable: String {
        key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// `hearclear.http.max.age` → `--http-max-age` (the `hearclear.` prefix dropped).
    public var flag: String {
        let name = key.hasPrefix("hearclear.") ? String(key.dropFirst("hearclear.".count)) : key
        return "--" + name.replacingOccurrences(of: ".", with: "-")
    }

    public var configKey: AbsoluteConfigKey {
        AbsoluteConfigKey(key.split(separator: ".").map(String.init))
    }

    /// The default as the README and `--help` show it.
    public var defaultDescription: String {
        if let shownDefault { return shownDefault }
        return defaultValue.map { "`\($0)`" } ?? "unset"
    }

    /// The help in plain text, for `--help`.
    public var plainHelp: String {
        help.replacingOccurrences(of: "`", with: "")
    }

    /// The default as an integer; a default that is not one is a mistake in the declaration,
    /// caught by the settings' tests.
    public var defaultInt: Int { Int(defaultValue!)! }
    public var defaultDouble: Double { Double(defaultValue!)! }
    public var defaultBool: Bool { defaultValue == "true" }

    /// A value given on the command line or in the environment, checked against the kind.
    /// - Returns: `nil` when `text` is not a value of this kind.
    public func value(_ text: String) -> ConfigValue? {
        let content: ConfigContent
        switch kind {
        case .text: content = .string(text)
        case .integer:
            guard let int = Int(text) else { return nil }
            content = .int(int)
        case .number:
            guard let double = Double(text), double.isFinite else { return nil }
            content = .double(double)
        case .flag:
            guard let bool = ["true": true, "false": false][text.lowercased()] else { return nil }
            content = .bool(bool)
        }
        return ConfigValue(content, isSecret: isSecret)
    }
}

extension ConfigReader {
    /// The setting's text, or its default.
    public func string(_ setting: Setting) -> String? {
        string(forKey: ConfigKey(setting.key), isSecret: setting.isSecret) ?? setting.defaultValue
    }

    /// The setting as a whole number, or its default.
    public func int(_ setting: Setting) -> Int {
        int(forKey: ConfigKey(setting.key), isSecret: setting.isSecret, default: setting.defaultInt)
    }

    /// The setting as a number, or its default.
    public func double(_ setting: Setting) -> Double {
        double(forKey: ConfigKey(setting.key), isSecret: setting.isSecret, default: setting.defaultDouble)
    }

    /// The setting as true or false, or its default.
    public func bool(_ setting: Setting) -> Bool {
        bool(forKey: ConfigKey(setting.key), isSecret: setting.isSecret, default: setting.defaultBool)
    }
}

extension Array where Element == Setting {
    /// The README's table of settings (README, "Configuration"), in declaration order.
    public var markdownTable: String {
        var lines = ["| flag | environment variable | default | what it does |", "|---|---|---|---|"]
        for setting in self {
            lines.append(
                "| `\(setting.flag)` | `\(setting.environmentVariable)` | \(setting.defaultDescription) | \(setting.help) |"
            )
        }
        return lines.joined(separator: "\n")
    }
}
