import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The context of `checkin.mustache`.
struct CheckinPage {
    struct Fact {
        let label: String
        let value: String
    }

    struct Hour {
        let hour: String
        let leq: String
        let l10: String
        let l50: String
        let l90: String
        let peak: String
        let valid: Int
        let counted: Bool
        let outlier: Bool
        let cell: String
        let modifiedZ: String
        let residual: String
    }

    struct Actions {
        let csrf: String
        let includeAction: String
        let excludeAction: String
        let clearAction: String
        let forced: Bool
        let forcedIn: Bool
        let forcedOut: Bool
    }

    let title: String
    let chrome: AdminChrome
    let notice: String?
    let id: String
    let venueName: String
    let venueLink: String
    let status: String
    let reasons: String?
    let override: String?
    let facts: [Fact]
    let explanation: [String]
    /// What it weighed and why, and the offsets in force at its time.
    let weighing: [String]
    let hasWeighing: Bool
    let chart: CheckinChart?
    /// The bands and windows of sound character, when the check-in carries LCeq or bands.
    let spectrogram: Spectrogram?
    let calibration: String
    let hours: [Hour]
    let hasHours: Bool
    let actions: Actions

    init(
        chrome: AdminChrome, checkin: StoredCheckin, venueName: String?, hours: [AdminCheckinHour],
        override: CheckinOverride?, modelOffsetDB: Double, referenceOffsetDB: Double, maxDistanceMetres: Double,
        notice: String?, venueTimezone: String? = nil, weighing: [String] = []
    ) {
        let idText = checkin.id.uuidString.lowercased()
        title = "Check-in " + AdminFormat.shortCheckinID(checkin.id)
        self.chrome = chrome
        self.notice = notice
        self.weighing = weighing
        hasWeighing = !weighing.isEmpty
        id = idText
        self.venueName = venueName ?? checkin.venueExternalID
        venueLink = "/farmer/venues/\(checkin.venueExternalID)"
        status = checkin.status.rawValue
        reasons = AdminFormat.reasons(checkin.reasons)
        self.override = override.map { "forced \($0.decision == .include ? "in" : "out")" }

        let analysis = CheckinAnalysis(checkin, venueTimezone: venueTimezone)
        let offset = modelOffsetDB + referenceOffsetDB
        chart = analysis.map { CheckinChart(samples: $0.samples, rejections: $0.rejections, offsetDB: offset) }
        spectrogram = analysis.flatMap { analysis in
            analysis.sound.map {
                Spectrogram(samples: analysis.samples, rejections: analysis.rejections, sound: $0, offsetDB: offset)
            }
        }
        self.hours = hours.map { Self.hour($0, referenceOffsetDB: referenceOffsetDB) }
        hasHours = !hours.isEmpty

        let total = checkin.receipt.sampleCount
        let valid = checkin.validSeconds ?? analysis?.validSeconds ?? 0
        facts = Self.facts(
            checkin, venueName: self.venueName, override: override, validSeconds: valid, offsetDB: offset)
        explanation = CheckinExplanation.sentences(
            .init(
                status: checkin.status, reasons: checkin.reasons, validSeconds: valid, totalSeconds: total,
                distanceMetres: checkin.distanceMetres, maxDistanceMetres: maxDistanceMetres,
                countedHours: hours.count { $0.row.counted },
                outlierHours: hours.map(\.row).filter {
                    $0.outlier || ($0.modifiedZ.map { abs($0) > CheckinAnalysis.outlierThreshold } ?? false)
                }
                .map { "\(Self.hourName($0)), modified z \(AdminFormat.signed($0.modifiedZ))" },
                override: override?.decision
            )
        )
        calibration =
            "Levels in calibrated dB: dBFS \(AdminFormat.signed(modelOffsetDB)) dB for the device model "
            + "\(AdminFormat.signed(referenceOffsetDB)) dB reference."
        actions = Actions(
            csrf: chrome.csrf, includeAction: "/farmer/checkins/\(idText)/include",
            excludeAction: "/farmer/checkins/\(idText)/exclude", clearAction: "/farmer/checkins/\(idText)/clear",
            forced: override != nil, forcedIn: override?.decision == .include, forcedOut: override?.decision == .exclude
        )
    }

    /// The check-in's facts: where and by what it was measured, when, how long, how much of it
    /// counted, its level and the admin's decision.
    static func facts(
        _ checkin: StoredCheckin, venueName: String, override: CheckinOverride?, validSeconds: Int, offsetDB: Double
    ) -> [Fact] {
        let total = checkin.receipt.sampleCount
        var facts = [
            Fact(label: "Venue", value: venueName),
            Fact(
                label: "Device",
                value: "\(checkin.deviceModel ?? "unknown model") " + DeviceIdentity.shortened(checkin.deviceID)
            ),
            Fact(label: "Source", value: checkin.source.rawValue),
            Fact(label: "Received", value: AdminFormat.time(checkin.receipt.receivedAt)),
            Fact(label: "Started", value: AdminFormat.time(checkin.startedAt)),
            Fact(
                label: "Duration",
                value: CheckinChart.clock((checkin.endedAt ?? checkin.startedAt).timeIntervalSince(checkin.startedAt))
                    + " (\(total) samples"
                    + (checkin.samplesRemovedAt.map { "; removed " + AdminFormat.time($0) + ", past the retention" }
                        ?? "")
                    + ")"
            ),
            Fact(
                label: "Valid seconds",
                value: "\(validSeconds) of \(total) (\(AdminFormat.percent(validSeconds, of: total)))"),
            Fact(
                label: "Level",
                value: checkin.levelDBFS.map { AdminFormat.decimal(Double($0) + offsetDB) + " dB" } ?? "–"
            ),
            Fact(
                label: "Distance from venue",
                value: checkin.distanceMetres.map { "\(Int($0.rounded())) m" } ?? "no location sent"
            ),
            Fact(
                label: "Local time from",
                value: checkin.zoneGuessed ? "each sample's UTC offset (venue zone unknown)" : "the venue's time zone"
            ),
            Fact(label: "Judged", value: AdminFormat.time(checkin.judgedAt)),
        ]
        if let override {
            facts.append(
                Fact(
                    label: "Admin decision",
                    value: "forced \(override.decision.rawValue) by \(override.username), "
                        + AdminFormat.time(override.createdAt) + (override.note.map { ": \($0)" } ?? "")
                )
            )
        }
        return facts
    }

    static func hour(_ piece: AdminCheckinHour, referenceOffsetDB: Double) -> Hour {
        let hour = piece.row
        let offset = hour.modelOffsetDB + referenceOffsetDB
        func level(_ dbfs: Double) -> String { AdminFormat.decimal(dbfs + offset) }
        var cell = "–"
        if let estimate = piece.cell {
            cell =
                "\(AdminFormat.decimal(estimate.levelDBFS + referenceOffsetDB)) "
                + "(\(AdminFormat.decimal(estimate.rangeLowDBFS + referenceOffsetDB))–"
                + "\(AdminFormat.decimal(estimate.rangeHighDBFS + referenceOffsetDB)), \(estimate.checkins))"
        }
        return Hour(
            hour: hourName(hour), leq: level(hour.leqDBFS), l10: level(hour.l10DBFS), l50: level(hour.l50DBFS),
            l90: level(hour.l90DBFS), peak: level(hour.maxPeakDBFS), valid: hour.validSeconds, counted: hour.counted,
            outlier: hour.outlier, cell: cell, modifiedZ: hour.modifiedZ.map { String(format: "%.2f", $0) } ?? "–",
            residual: AdminFormat.signed(hour.residualDB)
        )
    }

    /// `Fri 21:00`.
    static func hourName(_ hour: AggregationResult.Hour) -> String {
        "\(HeatMap.days[max(0, min(6, hour.weekday - 1))]) \(hour.hour):00"
    }

    static func notice(for code: String) -> String? {
        switch code {
        case "include": "Forced in. The venue was recomputed."
        case "exclude": "Forced out. The venue was recomputed."
        case "cleared": "Decision withdrawn. The venue was recomputed with the normal judgement."
        case "unchanged": "There was no decision to withdraw."
        default: nil
        }
    }
}
