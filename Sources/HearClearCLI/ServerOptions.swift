import ArgumentParser
import Configuration
import HearClearEngine
import Logging

/// Options shared by the commands that reach the database. Each has an environment variable;
/// flags win over the environment, which wins over `.env` in the working directory, then the
/// defaults.
public struct ServerOptions: ParsableArguments {
    @Option(help: EngineSettings.dataDirectory.argumentHelp) public var dataDir: String?
    @Option(help: EngineSettings.resources.argumentHelp) public var resources: String?
    @Option(help: EngineSettings.databaseURL.argumentHelp) public var databaseURL: String?
    @Option(help: EngineSettings.logFormat.argumentHelp) public var logFormat: String?
    @Option(help: EngineSettings.logLevel.argumentHelp) public var logLevel: String?

    public init() {}

    /// The flags given, as configuration values.
    public var values: [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (setting, value) in [
            (EngineSettings.dataDirectory, dataDir), (EngineSettings.resources, resources),
            (EngineSettings.databaseURL, databaseURL), (EngineSettings.logFormat, logFormat),
            (EngineSettings.logLevel, logLevel),
        ] {
            if let value { values[setting.configKey] = .init(.string(value), isSecret: setting.isSecret) }
        }
        return values
    }

    /// Flag values, then the environment, then `.env`.
    public func reader(extra: [AbsoluteConfigKey: ConfigValue] = [:]) async throws -> ConfigReader {
        try await Self.reader(flags: values.merging(extra) { _, new in new })
    }

    /// `flags`, then the environment, then `.env` in the working directory.
    public static func reader(flags: [AbsoluteConfigKey: ConfigValue]) async throws -> ConfigReader {
        ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flags),
            EnvironmentVariablesProvider(),
            try await EnvironmentVariablesProvider(environmentFilePath: ".env", allowMissing: true),
        ])
    }
}
