import Configuration
import HearClearEngine

/// The rate limits of `serve` (README, "Rate limits"), each `N/s`, `N/min` or `N/h`, per instance.
public struct RateLimitConfiguration: Sendable, Equatable {
    /// Check-ins (v1 and v2) a device may submit: a person checks in a few times an evening.
    public var checkinsPerDevice = RateLimit(count: 20, periodSeconds: 3_600)
    /// Check-ins from one client address, all devices together (a venue's Wi-Fi or a carrier's
    /// NAT puts many phones behind one address).
    public var checkinsPerAddress = RateLimit(count: 600, periodSeconds: 3_600)
    /// Audio metering and tone calibrations from one address (each decodes a recording).
    public var meteringPerAddress = RateLimit(count: 60, periodSeconds: 3_600)
    /// Searches (`/api/v2/venues`, alternatives, similar) from one address.
    public var searchesPerAddress = RateLimit(count: 600, periodSeconds: 60)
    /// Reports of wrong data one device may send: a person disagrees a few times an evening at
    /// most, and every report waits for an admin, so a flood costs people's time.
    public var reportsPerDevice = RateLimit(count: 10, periodSeconds: 3_600)
    /// Reports from one client address, all devices together (a venue's Wi-Fi; far rarer than
    /// check-ins).
    public var reportsPerAddress = RateLimit(count: 120, periodSeconds: 3_600)
    /// Proxies whose `X-Forwarded-For` is believed: the client is the last address in it that is
    /// not one of them. Empty: the header is ignored and the peer is the client.
    public var trustedProxies: [IPNetwork] = []
    /// Clients never limited: by default loopback, the operator's own tools (`simulate`, load
    /// tests). Behind a proxy on the same host, set `trustedProxies`, or every client is loopback.
    public var exempt: [IPNetwork] = IPNetwork.loopback

    public init() {}

    public init(reader: ConfigReader) throws {
        self.init()
        func limit(_ key: String, _ fallback: RateLimit) throws -> RateLimit {
            guard let text = reader.string(forKey: ConfigKey(key)) else { return fallback }
            guard let limit = RateLimit(text) else {
                throw ConfigurationError.invalid(
                    "\(key) must be N/s, N/min or N/h (e.g. 20/h), or 0 for no limit, not '\(text)'")
            }
            return limit
        }
        func networks(_ key: String, _ fallback: [IPNetwork]) throws -> [IPNetwork] {
            guard let text = reader.string(forKey: ConfigKey(key)) else { return fallback }
            guard let networks = [IPNetwork].parse(text) else {
                throw ConfigurationError.invalid(
                    "\(key) must be addresses or networks separated by commas (e.g. 10.0.0.0/8,::1), not '\(text)'")
            }
            return networks
        }
        checkinsPerDevice = try limit("hearclear.rate.checkins.device", checkinsPerDevice)
        checkinsPerAddress = try limit("hearclear.rate.checkins.address", checkinsPerAddress)
        meteringPerAddress = try limit("hearclear.rate.metering.address", meteringPerAddress)
        searchesPerAddress = try limit("hearclear.rate.searches.address", searchesPerAddress)
        reportsPerDevice = try limit("hearclear.rate.reports.device", reportsPerDevice)
        reportsPerAddress = try limit("hearclear.rate.reports.address", reportsPerAddress)
        trustedProxies = try networks("hearclear.trusted.proxies", trustedProxies)
        exempt = try networks("hearclear.rate.exempt", exempt)
    }
}
