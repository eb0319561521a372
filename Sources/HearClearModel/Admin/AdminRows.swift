import Foundation
import LoudnessCore

/// One thing an admin did.
public struct AdminAuditEntry: Sendable, Equatable {
    public var at: Date
    public var username: String
    public var action: String
    public var subject: String?
    public var detail: String?

    public init(at: Date, username: String, action: String, subject: String? = nil, detail: String? = nil) {
        self.at = at
        self.username = username
        self.action = action
        self.subject = subject
        self.detail = detail
    }
}

/// One venue-local hour of a check-in (`checkin_hours`) beside the cell estimate it was compared
/// with (`loudness_cells`). Levels are dBFS: the piece's raw, the cell's model-corrected.
public struct AdminCheckinHour: Sendable, Equatable {
    public var row: AggregationResult.Hour
    /// `nil` when the cell has no estimate.
    public var cell: StoredCell?

    public init(row: AggregationResult.Hour, cell: StoredCell? = nil) {
        self.row = row
        self.cell = cell
    }
}

/// A device in the admin's list: the engine's summary, plus how many of its check-ins were
/// judged outliers.
public struct AdminDeviceRow: Sendable, Equatable {
    public var summary: DeviceSummary
    public var outliers: Int
    /// The most check-ins the device started within one clock hour (UTC).
    public var busiestHourCheckins: Int

    /// More check-ins started within one hour than a person makes: each records a few minutes
    /// at a venue, and people check in a few times an evening. 12 is one every five minutes,
    /// sustained for an hour (docs/ARCHITECTURE.md, "Devices and calibration").
    public static let humanPacePerHour = 12

    /// Far over any human pace: a script, or a phone used as a bot; flagged for the admin.
    public var isOverHumanPace: Bool { busiestHourCheckins > Self.humanPacePerHour }

    public init(summary: DeviceSummary, outliers: Int, busiestHourCheckins: Int) {
        self.summary = summary
        self.outliers = outliers
        self.busiestHourCheckins = busiestHourCheckins
    }
}

/// A report in the admin's lists, with its venue, its device when known, and its cell as it
/// stands now.
public struct AdminReportRow: Sendable, Equatable {
    public var report: StoredReport
    public var venueName: String
    /// The device's row, when it had checked in before the report.
    public var deviceKey: Int64?
    /// Whole: shorten it before showing it.
    public var deviceClientID: String?
    /// The cell now, model-corrected dBFS (add the reference offset); `nil` without one.
    public var levelNowDBFS: Double?
    public var levelNowEstimated: Bool

    public init(
        report: StoredReport, venueName: String, deviceKey: Int64? = nil, deviceClientID: String? = nil,
        levelNowDBFS: Double? = nil, levelNowEstimated: Bool
    ) {
        self.report = report
        self.venueName = venueName
        self.deviceKey = deviceKey
        self.deviceClientID = deviceClientID
        self.levelNowDBFS = levelNowDBFS
        self.levelNowEstimated = levelNowEstimated
    }
}

/// A cell that open "quieter"/"louder" reports dispute, for the dashboard.
public struct AdminDisputedCell: Sendable, Equatable {
    public var venueExternalID: String
    public var venueName: String
    public var position: CellPosition
    public var quieter: Int
    public var louder: Int
    /// Different devices among those reports.
    public var devices: Int
    public var latestAt: Date
    /// The cell now, model-corrected dBFS; `nil` without one.
    public var levelNowDBFS: Double?
    public var levelNowEstimated: Bool

    public init(
        venueExternalID: String, venueName: String, position: CellPosition, quieter: Int, louder: Int, devices: Int,
        latestAt: Date, levelNowDBFS: Double? = nil, levelNowEstimated: Bool
    ) {
        self.venueExternalID = venueExternalID
        self.venueName = venueName
        self.position = position
        self.quieter = quieter
        self.louder = louder
        self.devices = devices
        self.latestAt = latestAt
        self.levelNowDBFS = levelNowDBFS
        self.levelNowEstimated = levelNowEstimated
    }
}

/// A signed-in admin, as stored in `admin_sessions`.
public struct AdminSession: Sendable, Equatable {
    public var username: String
    /// The token every form of this session carries in its hidden `csrf` field.
    public var csrfToken: String
    public var expiresAt: Date

    public init(username: String, csrfToken: String, expiresAt: Date) {
        self.username = username
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }
}

/// A venue in the admin's list.
public struct AdminVenueRow: Sendable, Equatable {
    public var externalID: String
    public var name: String
    public var category: String?
    public var activityAt: Date
    public var checkins: Int

    public init(externalID: String, name: String, category: String? = nil, activityAt: Date, checkins: Int) {
        self.externalID = externalID
        self.name = name
        self.category = category
        self.activityAt = activityAt
        self.checkins = checkins
    }
}

/// A check-in in a venue's list. `levelDBFS` is raw; `modelOffsetDB` is its device model's
/// calibration offset (0 without one).
public struct AdminVenueCheckinRow: Sendable, Equatable {
    public var id: UUID
    public var startedAt: Date
    public var status: CheckinStatus
    public var reasons: [JudgementReason]
    /// Whole: shorten it before showing it.
    public var deviceClientID: String
    public var deviceModel: String?
    public var levelDBFS: Double?
    public var modelOffsetDB: Double
    public var validSeconds: Int?
    public var sampleCount: Int
    /// An admin's standing decision (`include` or `exclude`), if any.
    public var override: String?

    public init(
        id: UUID, startedAt: Date, status: CheckinStatus, reasons: [JudgementReason], deviceClientID: String,
        deviceModel: String? = nil, levelDBFS: Double? = nil, modelOffsetDB: Double, validSeconds: Int? = nil,
        sampleCount: Int, override: String? = nil
    ) {
        self.id = id
        self.startedAt = startedAt
        self.status = status
        self.reasons = reasons
        self.deviceClientID = deviceClientID
        self.deviceModel = deviceModel
        self.levelDBFS = levelDBFS
        self.modelOffsetDB = modelOffsetDB
        self.validSeconds = validSeconds
        self.sampleCount = sampleCount
        self.override = override
    }
}
