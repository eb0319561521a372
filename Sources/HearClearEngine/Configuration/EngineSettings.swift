/// The settings of every command that reaches the database, and the engine's settings of
/// `serve` (README, "Configuration"), in the order the README lists them.
public enum EngineSettings {
    public static let dataDirectory = Setting(
        "hearclear.data.dir", .text, default: ".hearclear",
        help: "home of the embedded PostgreSQL (`<dir>/postgres`)")
    public static let resources = Setting(
        "hearclear.resources", .text, default: ".", shown: "working directory",
        help: "folder holding `Migrations/`, `Admin/`, `Pages/` and `API/`; the server refuses to start without them")
    public static let databaseURL = Setting(
        "database.url", .text, default: nil, shown: "unset: embedded", secret: true,
        help:
            "use this PostgreSQL and start nothing, e.g. `postgres://user:pass@host:5432/db`. `?sslmode=require` turns TLS on; `?host=/socket/dir` selects a Unix socket"
    )
    public static let logFormat = Setting(
        "hearclear.log.format", .text, default: "text",
        help: "`text` or `json` (one JSON object per line)")
    public static let logLevel = Setting(
        "hearclear.log.level", .text, default: "info",
        help: "`trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`")
    public static let maxDistanceMetres = Setting(
        "hearclear.max.distance.metres", .number, default: "250",
        help:
            "a check-in whose phone was farther than this from the venue is stored as `excluded` (`too_far_from_venue`)"
    )
    public static let referenceOffsetDB = Setting(
        "hearclear.reference.offset.db", .number, default: "110",
        help: "reference offset of calibrated levels (see below)")
    public static let databaseConnections = Setting(
        "hearclear.database.connections", .integer, default: "20", help: "size of the PostgreSQL connection pool")
    public static let aggregationWorkers = Setting(
        "hearclear.aggregation.workers", .integer, default: "2",
        help:
            "batches of venues (up to 32 each) this instance re-judges at once (any number of instances share the queue)"
    )
    public static let ingestGroupWindow = Setting(
        "hearclear.ingest.group.window.ms", .number, default: "2",
        help:
            "check-ins arriving together are written in one statement and commit (up to 64); while one group is being written the next waits up to this many milliseconds for company (a lone check-in never waits); `0`: each check-in alone"
    )
    public static let calibrationInterval = Setting(
        "hearclear.calibration.interval", .integer, default: "900",
        help:
            "seconds between crowd calibration fits of the phone models' offsets (first one interval after start; `0`: never, fit with `hearclear calibrate models --fit`)"
    )
    public static let searchIndex = Setting(
        "hearclear.search.index", .text, default: "on",
        help:
            "`on`: search, alternatives and similar venues are answered from every venue held in memory (loaded at start, kept true by NOTIFY; PostgreSQL answers while it loads); `off`: PostgreSQL answers them all"
    )
    public static let databaseReadURL = Setting(
        "database.read.url", .text, default: nil, secret: true,
        help:
            "a PostgreSQL streaming replica for reads that miss the read cache; writes, the queue and LISTEN stay on the primary, and reads go to the primary while the replica does not answer"
    )
    public static let dataLicense = Setting(
        "hearclear.data.license", .text, default: DataLicense.odbl.name,
        help:
            "licence the open-data exports are published under, named in the GeoJSON and a `Link` header (also `hearclear export`)"
    )
    public static let dataLicenseURL = Setting(
        "hearclear.data.license.url", .text, default: nil, shown: "the ODbL 1.0 text",
        help: "where the licence's text is (absolute http(s) URL); needed with any licence but the default")

    public static let deviceKey = Setting(
        "hearclear.device.key", .text, default: nil, shown: "generated into `<data-dir>/device-key`",
        help:
            "the secret device ids are kept under (HMAC-SHA-256; at least 32 characters). A secret to back up with the database: under another key every phone is a new device"
    )

    public static let rawRetentionDays = Setting(
        "hearclear.raw.retention.days", .text, default: "off",
        help:
            "days a check-in keeps its per-second samples once judged; then they are removed and it keeps its judgement, its hourly pieces and its sound character (`off`: for ever)"
    )

    public static let soundModel = Setting(
        "hearclear.sound.model", .text, default: nil, shown: "`models/yamnet` in --resources, if there",
        help:
            "folder of the AudioSet model that labels the sound character of uploaded recordings (`make deps` fetches it into `models/yamnet`); `off`: the spectra rules. Without it the rules label them, and the log says so"
    )

    /// What every command that reaches the database takes.
    public static let database = [dataDirectory, resources, databaseURL, deviceKey, logFormat, logLevel]
    /// The engine's part of `serve` (and ``databaseReadURL``).
    public static let serve = [
        maxDistanceMetres, referenceOffsetDB, databaseConnections, ingestGroupWindow, aggregationWorkers,
        calibrationInterval, searchIndex, rawRetentionDays, soundModel,
    ]
    /// The open data's licence (`serve` and `export`).
    public static let license = [dataLicense, dataLicenseURL]
}
