import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The loudness answers of v1 (docs/LEGACY_V1.md, "Requests and answers") from the same stored
/// cells and labels as v2, in the 2013 client's amplitude scale:
/// `10^((calibrated − reference offset)/20)`. Cells are stored model-corrected, so this is the
/// cell's dBFS back as amplitude, and the very scale of `venue/volume_bounds`: an `average` lies
/// inside the bounds of its `label`'s band.
struct LegacyVolume {
    /// The old server showed no volume before a venue had 2 check-ins.
    static let minimumCheckins = 2
    static let weekdayKeys = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    let reader: LoudnessReads

    /// `volume` of `venue/{id}`: the overall level (as v2's `level`) as amplitude; `nil` until the
    /// venue has 2 check-ins in its cells.
    func volume(of venue: Venue) async throws -> Double? {
        guard try await reader.includedCheckinCount(venueID: venue.id) >= Self.minimumCheckins else {
            return nil
        }
        guard let level = try await reader.overallLevel(venueID: venue.id) else { return nil }
        return LegacyController.amplitude(calibratedDB: level, referenceOffsetDB: reader.referenceOffsetDB)
    }

    /// `volinfo` of `venue/{id}/volume`: `Mon`…`Sun` (days with data only), hours in order.
    func volinfo(of venue: Venue, bands: Bands) async throws -> [String: Any] {
        var days: [String: [[String: Any]]] = [:]
        // Estimated cells never reach v1: the 2013 client cannot tell them from measured ones.
        for cell in try await reader.cells(venueID: venue.id, bands: bands) where !cell.estimated {
            let entry: [String: Any] = [
                "time": String(format: "%02d:00", cell.localHour.hour),
                "average": LegacyController.amplitude(
                    calibratedDB: cell.levelDB, referenceOffsetDB: reader.referenceOffsetDB),
                "label": cell.label,
            ]
            days[Self.weekdayKeys[cell.localHour.weekday - 1], default: []].append(entry)
        }
        return days
    }
}
