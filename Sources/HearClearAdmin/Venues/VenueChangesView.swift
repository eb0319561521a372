import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// A venue's lasting changes of level as the admin reads them (docs/ARCHITECTURE.md, "Venues that
/// change"): when, how much (per hour when not uniform), on how many check-ins, what became of it,
/// and, for a change in force, a form to dismiss it.
struct VenueChangeView {
    let venue: String
    let venueLink: String
    let changedAt: String
    let detectedAt: String
    let shift: String
    /// `21:00 +6.0, 22:00 +6.2`: the hours that moved, when they did not move alike.
    let hourShifts: String?
    let checkinsSince: String
    let status: String
    let statusTag: String
    let dismissed: String?
    let inForce: Bool
    let dismissAction: String
    let csrf: String

    init(_ row: AdminVenueChangeRow, csrf: String) {
        let change = row.change
        venue = row.venueName
        venueLink = "/farmer/venues/\(row.venueExternalID)"
        changedAt = AdminFormat.minute(change.changedAt)
        detectedAt = AdminFormat.minute(change.detectedAt)
        shift = AdminFormat.signed(change.shiftDB) + " dB"
        hourShifts = Self.hourShifts(change.shiftsDB)
        checkinsSince = AdminFormat.count(change.checkinsSince)
        status = change.status.rawValue.replacingOccurrences(of: "_", with: " ")
        statusTag = change.status.rawValue
        dismissed =
            change.status == .dismissed
            ? "dismissed by \(change.dismissedBy ?? "?") " + AdminFormat.minute(change.dismissedAt) : nil
        inForce = change.status == .inForce
        dismissAction = "/farmer/venues/\(row.venueExternalID)/changes/\(row.key)/dismiss"
        self.csrf = csrf
    }

    /// The changed hours with their shifts, when they differ from one another; nil when every
    /// changed hour moved alike (or none did).
    static func hourShifts(_ shifts: [Double]) -> String? {
        let changed = shifts.enumerated().filter { $0.element != 0 }
        let rounded = Set(changed.map { Int(($0.element * 10).rounded()) })
        guard rounded.count > 1 || (changed.count > 0 && changed.count < shifts.count) else { return nil }
        return changed.map { String(format: "%02d:00 ", $0.offset) + AdminFormat.signed($0.element) }
            .joined(separator: ", ")
    }

    static func notice(for code: String) -> String? {
        switch code {
        case "change-dismissed":
            "Change dismissed. The venue is being judged again as if it had not been detected."
        case "change-unchanged": "That change was not in force any more."
        default: nil
        }
    }
}

/// The venue page's section on its changes: the list, and the evidence of the change in force
/// (or of the latest one) as a chart.
struct VenueChangesSection {
    let rows: [VenueChangeView]
    let hasRows: Bool
    let showVenue = false
    let evidence: EvidenceChart?
    let evidenceOf: String?

    init(rows: [AdminVenueChangeRow], rejudgement: VenueRejudgement?, csrf: String) {
        self.rows = rows.map { VenueChangeView($0, csrf: csrf) }
        hasRows = !rows.isEmpty
        let shown = rows.first { $0.change.status == .inForce } ?? rows.first
        let inForce = rejudgement?.changes.last { $0.status == .inForce }
        // The judge's evidence is of its change in force; without one, of the latest check-ins.
        let changedAt = inForce.map { Date(timeIntervalSince1970: $0.changedAt) } ?? shown?.change.changedAt
        evidence = rejudgement.flatMap { EvidenceChart(evidence: $0.evidence, changedAt: changedAt) }
        evidenceOf = changedAt.map { "the change of " + AdminFormat.minute($0) + " UTC" }
    }
}
