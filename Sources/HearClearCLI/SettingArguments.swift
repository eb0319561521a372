import ArgumentParser
import Configuration
import HearClearEngine

/// `serve`'s flags and help, made from the settings' declarations.
public enum SettingArguments {
    /// The values of `arguments` (``SettingFlags``), as the argument parser reports a mistake.
    public static func values(_ arguments: [String], settings: [Setting]) throws -> [AbsoluteConfigKey: ConfigValue] {
        do {
            return try SettingFlags.values(arguments, settings: settings)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The settings as `--help` lists them: flag, variable, default and what it does.
    public static func help(_ settings: [Setting]) -> String {
        settings.map { setting in
            let value =
                switch setting.kind {
                case .flag: ""
                case .integer: " <integer>"
                case .number: " <number>"
                case .text: " <text>"
                }
            let shown = setting.defaultDescription.replacingOccurrences(of: "`", with: "")
            return
                "\(setting.flag)\(value): \(setting.plainHelp). Env: \(setting.environmentVariable). Default: \(shown)."
        }
        .joined(separator: "\n\n")
    }
}

extension Setting {
    /// The help of an `@Option` declared for this setting (for the commands that take a few of
    /// the settings beside arguments of their own).
    public var argumentHelp: ArgumentHelp {
        let shown = defaultDescription.replacingOccurrences(of: "`", with: "")
        return ArgumentHelp("\(plainHelp). Env: \(environmentVariable). Default: \(shown)")
    }
}
