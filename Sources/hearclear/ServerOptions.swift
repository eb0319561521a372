import ArgumentParser
import Configuration
import HearClearEngine
import Logging

/// Options shared by the commands that reach the database. Each has an environment variable;
/// flags win over the environment, which wins over `.env` in the working directory, then the
/// defaults.
struct ServerOptions: ParsableArguments {
    @Option(help: "Folder of the embedded PostgreSQL (<dir>/postgres). Env: HEARCLEAR_DATA_DIR. Default: .hearclear")
    var dataDir: String?

    @Option(
        help: "Folder holding Migrations/, Admin/ and API/. Env: HEARCLEAR_RESOURCES. Default: the working directory")
    var resources: String?

    @Option(
        help: "Use this PostgreSQL instead of the embedded one (postgres://user:pass@host:5432/db). Env: DATABASE_URL")
    var databaseURL: String?

    @Option(help: "Log format: text or json. Env: HEARCLEAR_LOG_FORMAT. Default: text")
    var logFormat: String?

    @Option(
        help: "Log level: trace, debug, info, notice, warning, error, critical. Env: HEARCLEAR_LOG_LEVEL. Default: info"
    )
    var logLevel: String?

    /// Flag values, then the environment, then `.env`.
    func reader(extra: [AbsoluteConfigKey: ConfigValue] = [:]) async throws -> ConfigReader {
        var values = extra
        func set(_ key: String, _ value: String?) {
            if let value {
                values[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = .init(
                    .string(value), isSecret: false)
            }
        }
        set("hearclear.data.dir", dataDir)
        set("hearclear.resources", resources)
        set("hearclear.log.format", logFormat)
        set("hearclear.log.level", logLevel)
        if let databaseURL {
            values[AbsoluteConfigKey(["database", "url"])] = .init(.string(databaseURL), isSecret: true)
        }
        return ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: values),
            EnvironmentVariablesProvider(),
            try await EnvironmentVariablesProvider(environmentFilePath: ".env", allowMissing: true),
        ])
    }
}
