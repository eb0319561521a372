import ArgumentParser
import Configuration
import HearClearEngine

/// The licence of the open-data exports, for `export` (`serve` takes it with its other settings).
struct DataLicenseOptions: ParsableArguments {
    @Option(help: EngineSettings.dataLicense.argumentHelp) var dataLicense: String?
    @Option(help: EngineSettings.dataLicenseURL.argumentHelp) var dataLicenseUrl: String?

    /// The flags given, as configuration values (they win over the environment).
    var values: [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        if let dataLicense {
            values[EngineSettings.dataLicense.configKey] = .init(.string(dataLicense), isSecret: false)
        }
        if let dataLicenseUrl {
            values[EngineSettings.dataLicenseURL.configKey] = .init(.string(dataLicenseUrl), isSecret: false)
        }
        return values
    }
}
