import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// What the admin (`/farmer`) reads and writes of its own: sessions, the audit log, the login
/// backoff, its tables of venues, devices, reports and the dashboard's totals, and the bands.
/// The admin acts on check-ins, devices and reports through the engine's other parts
/// (``CheckinDecisions``, ``DeviceDirectory``, ``VenueReports``); these are its pages' queries.
public struct Administration: Sendable {
    public let sessions: AdminSessions
    public let audit: AdminAudit
    public let loginThrottle: LoginThrottle
    public let overview: AdminOverviewReads
    public let venues: AdminVenueReads
    public let reports: AdminReportReads
    public let devices: AdminDeviceReads
    public let bands: BandSettings
    public let trust: AdminTrustReads

    init(client: PostgresClient, logger: Logger) {
        sessions = AdminSessions(repository: AdminSessionRepository(client: client, logger: logger))
        audit = AdminAudit(log: AdminAuditLog(client: client, logger: logger))
        loginThrottle = LoginThrottle(throttle: AdminLoginThrottle(client: client, logger: logger))
        overview = AdminOverviewReads(repository: AdminOverviewRepository(client: client, logger: logger))
        venues = AdminVenueReads(repository: AdminVenueRepository(client: client, logger: logger))
        reports = AdminReportReads(repository: AdminReportRepository(client: client, logger: logger))
        devices = AdminDeviceReads(repository: AdminDeviceRepository(client: client, logger: logger))
        bands = BandSettings(repository: BandRepository(client: client, logger: logger))
        trust = AdminTrustReads(
            repository: AdminTrustRepository(client: client, logger: logger),
            rejudging: VenueRejudging(client: client, logger: logger))
    }
}

/// Admin sessions, shared by every server instance (`admin_sessions`); a session is found by the
/// SHA-256 of its cookie's token, never by the token.
public struct AdminSessions: Sendable {
    let repository: AdminSessionRepository

    /// Stores a new session for `username` that ends after `lifetimeSeconds`; returns it.
    public func create(
        tokenSHA256: Data, username: String, csrfToken: String, lifetimeSeconds: Int, remoteAddress: String?
    ) async throws -> AdminSession {
        try await repository.create(
            tokenSHA256: tokenSHA256, username: username, csrfToken: csrfToken, lifetimeSeconds: lifetimeSeconds,
            remoteAddress: remoteAddress)
    }

    /// The unexpired session with this token hash.
    public func find(tokenSHA256: Data) async throws -> AdminSession? {
        try await repository.find(tokenSHA256: tokenSHA256)
    }

    /// Ends the session with this token hash (logging out), on every instance at once.
    public func delete(tokenSHA256: Data) async throws {
        try await repository.delete(tokenSHA256: tokenSHA256)
    }

    /// Removes the sessions that have expired (called at each login).
    public func purgeExpired() async throws {
        try await repository.purgeExpired()
    }
}

/// Who did what in the admin, newest first.
public struct AdminAudit: Sendable {
    let log: AdminAuditLog

    /// Adds an entry: who (`username`) did what (`action`), to what and with which detail.
    public func record(username: String, action: String, subject: String? = nil, detail: String? = nil)
        async throws
    {
        try await log.record(username: username, action: action, subject: subject, detail: detail)
    }

    /// The latest `limit` entries, newest first.
    public func recent(limit: Int) async throws -> [AdminAuditEntry] {
        try await log.recent(limit: limit)
    }
}

/// Exponential backoff of admin logins per key (`ip:…`, `user:…`), shared by every server
/// instance; the rule is `AdminLoginThrottle`'s in the Store, which keeps the counts.
public struct LoginThrottle: Sendable {
    /// Whether an attempt may go ahead, or how long until the key may try again.
    public enum Decision: Sendable, Equatable {
        case allowed
        case blocked(retryAfterSeconds: Int)
    }

    let throttle: AdminLoginThrottle

    /// Counts an attempt for `key`, or refuses it while the key is blocked.
    public func attempt(key: String, maximumDelaySeconds: Int) async throws -> Decision {
        switch try await throttle.attempt(key: key, maximumDelaySeconds: maximumDelaySeconds) {
        case .allowed: .allowed
        case .blocked(let seconds): .blocked(retryAfterSeconds: seconds)
        }
    }

    /// Forgets the keys' failures (after a successful login).
    public func clear(keys: [String]) async throws {
        try await throttle.clear(keys: keys)
    }
}

/// The dashboard's figures.
public struct AdminOverviewReads: Sendable {
    let repository: AdminOverviewRepository

    /// Counts over the whole database, and check-ins by status.
    public func totals() async throws -> AdminOverview.Totals { try await repository.totals() }
    /// The aggregation queue: its entries, their venues and when the oldest was queued.
    public func queue() async throws -> AdminOverview.Queue { try await repository.queue() }
    /// The venues with the newest check-ins.
    public func recentVenues(limit: Int) async throws -> [AdminOverview.RecentVenue] {
        try await repository.recentVenues(limit: limit)
    }
    /// The devices seen most recently, newest first.
    public func recentDevices(limit: Int) async throws -> [AdminOverview.RecentDevice] {
        try await repository.recentDevices(limit: limit)
    }
    /// The check-ins received most recently, with their venue, device and status.
    public func recentCheckins(limit: Int) async throws -> [AdminOverview.RecentCheckin] {
        try await repository.recentCheckins(limit: limit)
    }
}

/// The admin's venue list, a venue's check-ins and a check-in's hours.
public struct AdminVenueReads: Sendable {
    let repository: AdminVenueRepository

    /// Venues, newest activity first; with `search`, those whose name contains it or id starts with it.
    public func list(search: String?, limit: Int, offset: Int) async throws -> [AdminVenueRow] {
        try await repository.list(search: search, limit: limit, offset: offset)
    }
    /// When the venue last saw a check-in; nil when it has none.
    public func lastCheckinAt(venueID: Int64) async throws -> Date? {
        try await repository.lastCheckinAt(venueID: venueID)
    }
    /// The venue's check-ins, newest first.
    public func checkins(venueID: Int64, limit: Int, offset: Int) async throws -> [AdminVenueCheckinRow] {
        try await repository.checkins(venueID: venueID, limit: limit, offset: offset)
    }
    /// The check-in's hours with their cells, in weekday and hour order.
    public func hours(checkinID: UUID) async throws -> [AdminCheckinHour] {
        try await repository.hours(checkinID: checkinID)
    }
}

/// Reports of wrong data as the admin lists them, and the cells whose phones disagree.
public struct AdminReportReads: Sendable {
    let repository: AdminReportRepository

    /// Reports newest first, all or only those of `status`.
    public func list(status: ReportStatus?, limit: Int, offset: Int) async throws -> [AdminReportRow] {
        try await repository.list(status: status, limit: limit, offset: offset)
    }
    /// The venue's open reports, newest first.
    public func open(venueID: Int64, limit: Int) async throws -> [AdminReportRow] {
        try await repository.open(venueID: venueID, limit: limit)
    }
    /// How many reports are open.
    public func openCount() async throws -> Int { try await repository.openCount() }
    /// Cells whose open "quieter"/"louder" reports come from at least `minimumDevices` devices.
    public func disputedCells(minimumDevices: Int, limit: Int) async throws -> [AdminDisputedCell] {
        try await repository.disputedCells(minimumDevices: minimumDevices, limit: limit)
    }
}

/// The admin's device list.
public struct AdminDeviceReads: Sendable {
    let repository: AdminDeviceRepository

    /// Devices, most recently seen first; with `excludedOnly`, only the excluded ones.
    public func list(excludedOnly: Bool, limit: Int, offset: Int) async throws -> [AdminDeviceRow] {
        try await repository.list(excludedOnly: excludedOnly, limit: limit, offset: offset)
    }
}

/// The loudness bands the server names levels with, and how many cells sit at each level (the
/// admin's preview of a change).
public struct BandSettings: Sendable {
    let repository: BandRepository

    /// The bands in force, lowest first.
    public func current() async throws -> [StoredBand] { try await repository.current() }
    /// Replaces every band at once; the next answers of v1, v2 and the admin label with them.
    public func replace(with bands: [StoredBand]) async throws { try await repository.replace(with: bands) }
    /// How many cells have each stored level (dBFS): what a preview of a band change labels.
    public func cellLevelCounts() async throws -> [(levelDBFS: Double, cells: Int)] {
        try await repository.cellLevelCounts()
    }
}

/// Trust as the admin sees and decides it (docs/ARCHITECTURE.md, "Venues that change",
/// "Campaigns", "Phones that drift", "Devices that earn trust"): venues' changes and their
/// evidence, campaigns, offsets over time, devices' trust. Every act queues the venues it
/// concerns, so their judgement follows.
public struct AdminTrustReads: Sendable {
    let repository: AdminTrustRepository
    let rejudging: VenueRejudging

    /// A venue's changes, newest first.
    public func changes(venueID: Int64) async throws -> [AdminVenueChangeRow] {
        try await repository.changes(venueID: venueID)
    }
    /// The most recently detected changes over all venues.
    public func recentChanges(limit: Int, offset: Int) async throws -> [AdminVenueChangeRow] {
        try await repository.recentChanges(limit: limit, offset: offset)
    }
    /// Dismisses the venue's change in force `key` and queues the venue; false when there is none.
    public func dismissChange(venueID: Int64, key: Int64, username: String) async throws -> Bool {
        try await repository.dismissChange(venueID: venueID, key: key, username: username)
    }
    /// Open campaigns first, then decided ones.
    public func campaigns(limit: Int, offset: Int) async throws -> [AdminCampaignRow] {
        try await repository.campaigns(limit: limit, offset: offset)
    }
    /// Excludes the open campaign's devices (`exclude`) or dismisses it, and queues its venues.
    public func decideCampaign(id: Int64, exclude: Bool, username: String) async throws -> AdminCampaignDecision {
        try await repository.decideCampaign(id: id, exclude: exclude, username: username)
    }
    /// The offsets in force at the check-in's time, piece by piece; nil for no such check-in.
    public func checkinOffsets(checkinID: UUID) async throws -> AdminCheckinOffsets? {
        try await repository.checkinOffsets(checkinID: checkinID)
    }
    /// Every model's offset in force with its step and its OS versions' offsets, by model.
    public func modelOffsetHistories() async throws -> [String: AdminModelOffsetHistory] {
        try await repository.modelOffsetHistories()
    }
    /// Devices whose readings stepped, most recently detected first.
    public func deviceSteps(limit: Int) async throws -> [AdminDeviceStep] {
        try await repository.deviceSteps(limit: limit)
    }
    /// These devices' trust by key; a device without a row is absent (the floor applies).
    public func trust(deviceKeys: [Int64]) async throws -> [Int64: Double] {
        try await repository.trust(deviceKeys: deviceKeys)
    }
    /// The venue judged again in memory, with its change's evidence and its check-ins' weights.
    public func rejudge(venueID: Int64) async throws -> VenueRejudgement? {
        try await rejudging.rejudge(venueID: venueID)
    }
}
