import Configuration
import HearClearEngine
import HearClearModel

/// The rate limits of `serve` (docs/OPERATIONS.md, "Rate limits"), each `N/s`, `N/min` or `N/h`, per instance.
public struct RateLimitConfiguration: Sendable, Equatable {
    /// Check-ins (v1 and v2) a device may submit: a person checks in a few times an evening.
    public var checkinsPerDevice = RateLimit(ServerSettings.rateCheckinsDevice.defaultValue!)!
    /// Check-ins from one client address, all devices together (a venue's Wi-Fi or a carrier's
    /// NAT puts many phones behind one address).
    public var checkinsPerAddress = RateLimit(ServerSettings.rateCheckinsAddress.defaultValue!)!
    /// Audio metering and tone calibrations from one address (each decodes a recording).
    public var meteringPerAddress = RateLimit(ServerSettings.rateMeteringAddress.defaultValue!)!
    /// Searches (`/api/v2/venues`, alternatives, similar) from one address.
    public var searchesPerAddress = RateLimit(ServerSettings.rateSearchesAddress.defaultValue!)!
    /// Reports of wrong data one device may send: a person disagrees a few times an evening at
    /// most, and every report waits for an admin, so a flood costs people's time.
    public var reportsPerDevice = RateLimit(ServerSettings.rateReportsDevice.defaultValue!)!
    /// Reports from one client address, all devices together (a venue's Wi-Fi; far rarer than
    /// check-ins).
    public var reportsPerAddress = RateLimit(ServerSettings.rateReportsAddress.defaultValue!)!
    /// Requests for a device's data or its erasure from one address: a person asks once; many
    /// from one address are someone guessing ids.
    public var devicesPerAddress = RateLimit(ServerSettings.rateDevicesAddress.defaultValue!)!
    /// Proxies whose `X-Forwarded-For` is believed: the client is the last address in it that is
    /// not one of them. Empty: the header is ignored and the peer is the client.
    public var trustedProxies: [IPNetwork] = []
    /// Clients never limited (the operator's own tools: `simulate`, load tests). None by
    /// default: exempting loopback would exempt every client behind a proxy or sidecar on the
    /// same host that is not also listed in `trustedProxies`, a limit that fails open.
    public var exempt: [IPNetwork] = []

    public init() {}

    public init(reader: ConfigReader) throws {
        self.init()
        // The text given, else the declared default, read by the same rule.
        func limit(_ setting: Setting) throws -> RateLimit {
            let text = reader.string(setting)!
            guard let limit = RateLimit(text) else {
                throw ConfigurationError.invalid(
                    "\(setting.key) must be N/s, N/min or N/h (e.g. 20/h), or 0 for no limit, not '\(text)'")
            }
            return limit
        }
        func networks(_ setting: Setting) throws -> [IPNetwork] {
            guard let text = reader.string(setting) else { return [] }
            guard let networks = [IPNetwork].parse(text) else {
                throw ConfigurationError.invalid(
                    "\(setting.key) must be addresses or networks separated by commas (e.g. 10.0.0.0/8,::1), not '\(text)'"
                )
            }
            return networks
        }
        checkinsPerDevice = try limit(ServerSettings.rateCheckinsDevice)
        checkinsPerAddress = try limit(ServerSettings.rateCheckinsAddress)
        meteringPerAddress = try limit(ServerSettings.rateMeteringAddress)
        searchesPerAddress = try limit(ServerSettings.rateSearchesAddress)
        reportsPerDevice = try limit(ServerSettings.rateReportsDevice)
        reportsPerAddress = try limit(ServerSettings.rateReportsAddress)
        devicesPerAddress = try limit(ServerSettings.rateDevicesAddress)
        trustedProxies = try networks(ServerSettings.trustedProxies)
        exempt = try networks(ServerSettings.rateExempt)
    }
}
