import ArgumentParser
import Configuration

/// The licence of the open-data exports, for `serve` (the API's exports) and `export`.
struct DataLicenseOptions: ParsableArguments {
    @Option(
        help:
            "Licence the exports are published under, named in the GeoJSON and a Link header (e.g. an SPDX id). Env: HEARCLEAR_DATA_LICENSE. Default: ODbL-1.0"
    )
    var dataLicense: String?

    @Option(
        help:
            "Where the licence's text is (absolute http(s) URL); needed with any licence but the default. Env: HEARCLEAR_DATA_LICENSE_URL. Default: https://opendatacommons.org/licenses/odbl/1-0/"
    )
    var dataLicenseUrl: String?

    /// The flags given, as configuration values (they win over the environment).
    var values: [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        if let dataLicense { values[["hearclear", "data", "license"]] = .init(.string(dataLicense), isSecret: false) }
        if let dataLicenseUrl {
            values[["hearclear", "data", "license", "url"]] = .init(.string(dataLicenseUrl), isSecret: false)
        }
        return values
    }
}
