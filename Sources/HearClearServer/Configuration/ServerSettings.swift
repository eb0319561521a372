import HearClearEngine

/// The HTTP and admin settings of `serve` (README, "Configuration"), each declared once: the
/// flags, the environment variables, the defaults of ``ServerConfiguration``, ``RateLimitConfiguration``
/// and ``ConnectionLimits``, and the README's table are made from these.
public enum ServerSettings {
    public static let hostname = Setting(
        "hearclear.hostname", .text, default: "127.0.0.1", help: "address to listen on")
    public static let port = Setting("hearclear.port", .integer, default: "8080", help: "port to listen on")
    public static let adminUser = Setting(
        "hearclear.admin.user", .text, default: "admin", help: "user name of the admin at `/farmer`")
    public static let adminPasswordHash = Setting(
        "hearclear.admin.password.hash", .text, default: nil, secret: true,
        help: "bcrypt hash (`$2b$12$…`) of the admin password; wins over the next one")
    public static let adminPassword = Setting(
        "hearclear.admin.password", .text, default: nil, secret: true,
        help:
            "admin password in clear, hashed at start. With neither set, a password is generated on the first start, printed once, and only its hash kept in `<data-dir>/admin-password.bcrypt` (delete the file for a new one). Prefer the environment to flags, which show in `ps`"
    )
    public static let adminSecureCookie = Setting(
        "hearclear.admin.secure.cookie", .flag, default: "false",
        help: "mark the admin session cookie `Secure`; set it when `/farmer` is served over TLS")
    public static let readCacheBytes = Setting(
        "hearclear.read.cache.bytes", .integer, default: "67108864", shown: "`67108864` (64 MiB)",
        help: "encoded answers (grids, venues, bands) kept in memory per instance; `0` turns the cache off")
    public static let httpMaxAge = Setting(
        "hearclear.http.max.age", .integer, default: "5",
        help: "`Cache-Control: max-age` (seconds) of grids, venues and bands")
    public static let httpStaleWhileRevalidate = Setting(
        "hearclear.http.stale.while.revalidate", .integer, default: "30",
        help: "`Cache-Control: stale-while-revalidate` (seconds) of grids, venues and bands")
    public static let rateCheckinsDevice = Setting(
        "hearclear.rate.checkins.device", .text, default: "20/h",
        help:
            "check-ins (v1 and v2) one device may submit; `N/s`, `N/min` or `N/h`, `0` for none (see \"Rate limits\")")
    public static let rateCheckinsAddress = Setting(
        "hearclear.rate.checkins.address", .text, default: "600/h",
        help: "check-ins from one client address, all devices together")
    public static let rateMeteringAddress = Setting(
        "hearclear.rate.metering.address", .text, default: "60/h",
        help: "recordings measured (`/api/v2/meter`, `/api/v2/calibrations/tone`) from one address")
    public static let rateSearchesAddress = Setting(
        "hearclear.rate.searches.address", .text, default: "600/min",
        help: "searches (`/api/v2/venues`, `alternatives`, `similar`) from one address")
    public static let rateReportsDevice = Setting(
        "hearclear.rate.reports.device", .text, default: "10/h",
        help: "reports of wrong data (`/api/v2/venues/{venueId}/reports`) one device may send")
    public static let rateReportsAddress = Setting(
        "hearclear.rate.reports.address", .text, default: "120/h",
        help: "reports of wrong data from one client address, all devices together")
    public static let rateDevicesAddress = Setting(
        "hearclear.rate.devices.address", .text, default: "30/h",
        help: "requests for a device's data or its erasure (`/api/v2/devices/{deviceId}…`) from one address")
    public static let trustedProxies = Setting(
        "hearclear.trusted.proxies", .text, default: nil, shown: "none",
        help: "proxies whose `X-Forwarded-For` is believed (addresses or networks, comma-separated)")
    public static let rateExempt = Setting(
        "hearclear.rate.exempt", .text, default: nil, shown: "none",
        help:
            "client addresses never limited (addresses or networks, comma-separated): the operator's own tools, e.g. `127.0.0.1,::1` for `simulate` and the load tests on this host"
    )
    public static let httpHeadTimeout = Setting(
        "hearclear.http.head.timeout", .number, default: "10",
        help:
            "seconds a client has to send a request's head (line and headers) from its first byte; then the connection is closed"
    )
    public static let httpBodyTimeout = Setting(
        "hearclear.http.body.timeout", .number, default: "30",
        help:
            "seconds a client has to send a body after its head (plus 1 s per `--http-body-min-rate` bytes received), and the longest pause within a body or without reading the answer"
    )
    public static let httpBodyMinRate = Setting(
        "hearclear.http.body.min.rate", .integer, default: "1024",
        help:
            "bytes a second of body that earn a second more, so an upload at least that fast is never cut off; `0`: the whole body within the body timeout"
    )
    public static let httpIdleTimeout = Setting(
        "hearclear.http.idle.timeout", .number, default: "60",
        help: "seconds a connection may stay open with no request begun, after it opens or after an answer")
    public static let httpMaxConnections = Setting(
        "hearclear.http.max.connections", .integer, default: "4096",
        help:
            "connections served at once; past it a connection is answered `503` with `Retry-After` and closed. Lowered at start to the open-file limit (`ulimit -n`, whose soft limit is raised towards the hard one) less a reserve of 192 + 2 per database connection"
    )

    public static let meterMaxConcurrent = Setting(
        "hearclear.meter.max.concurrent", .integer, default: "4",
        help:
            "recordings `POST /api/v2/meter` meters at once, each on a thread of its own; past it a request is answered `503` (`busy`, with `Retry-After`) before its body is read"
    )

    /// Every setting of `serve`, in the README's order: the database commands' settings, the
    /// engine's, then these, then the licence.
    public static let pagesMaxAge = Setting(
        "hearclear.pages.max.age", .integer, default: "60",
        help:
            "`Cache-Control: max-age` (seconds) of the pages for people, and how long a venue's page is kept in memory: its own figures follow every change, its alternatives nearby and its \"now\" at most this late"
    )
    public static let mapTilesURL = Setting(
        "hearclear.map.tiles.url", .text, default: nil, shown: "unset: no map",
        help:
            "tile server of the map on the pages' results, e.g. `https://tile.openstreetmap.org/{z}/{x}/{y}.png` (`{z}`, `{x}`, `{y}` required; mind the server's usage policy); the map runs on Debian's Leaflet served from here, and the browser fetches tiles from that server only when it is set"
    )
    public static let mapAttribution = Setting(
        "hearclear.map.attribution", .text, default: "© OpenStreetMap contributors",
        help: "the credit the tile server asks for, shown on the map (plain text)")
    public static let leafletDirectory = Setting(
        "hearclear.leaflet.directory", .text, default: "/usr/share/javascript/leaflet",
        help: "where Debian's `libjs-leaflet` is; read at start when `--map-tiles-url` is set")

    public static let all: [Setting] =
        [hostname, port] + EngineSettings.database + EngineSettings.serve + [
            adminUser, adminPasswordHash, adminPassword, adminSecureCookie,
        ] + [EngineSettings.databaseReadURL] + [
            readCacheBytes, httpMaxAge, httpStaleWhileRevalidate, rateCheckinsDevice, rateCheckinsAddress,
            rateMeteringAddress, rateSearchesAddress, rateReportsDevice, rateReportsAddress, rateDevicesAddress,
            trustedProxies,
            rateExempt,
            httpHeadTimeout, httpBodyTimeout, httpBodyMinRate, httpIdleTimeout, httpMaxConnections,
            meterMaxConcurrent,
            pagesMaxAge, mapTilesURL, mapAttribution, leafletDirectory,
        ] + EngineSettings.license
}
