import Foundation
import HearClearStore
import LoudnessCore

/// The context of `checkin.mustache`.
struct CheckinPage {
    struct Fact {
        let label: String
        let value: String
    }

    let title: String
    let chrome: AdminChrome
    let id: String
    let venueName: String
    let venueLink: String
    let status: String
    let reasons: String?
    let facts: [Fact]
    let explanation: [String]
    let chart: CheckinChart?
    let calibration: String

    init(
        chrome: AdminChrome, checkin: StoredCheckin, venueName: String?, modelOffsetDB: Double,
        referenceOffsetDB: Double, maxDistanceMetres: Double
    ) {
        let idText = checkin.id.uuidString.lowercased()
        title = "Check-in " + AdminFormat.shortCheckinID(checkin.id)
        self.chrome = chrome
        id = idText
        self.venueName = venueName ?? checkin.venueExternalID
        venueLink = "/farmer/venues/\(checkin.venueExternalID)"
        status = checkin.status
        reasons = AdminFormat.reasons(checkin.reasons)

        let samples = try? SessionSamples(
            offsetsSeconds: checkin.offsetsSeconds.map(Double.init), averageDBFS: checkin.averageDBFS.map(Double.init),
            peakDBFS: checkin.peakDBFS.map(Double.init)
        )
        let cleaned = samples.map { SessionCleaner().clean($0) }
        let offset = modelOffsetDB + referenceOffsetDB
        chart = samples.flatMap { samples in
            cleaned.map { CheckinChart(samples: samples, rejections: $0.rejections, offsetDB: offset) }
        }
        let total = checkin.offsetsSeconds.count
        let valid = checkin.validSeconds ?? cleaned?.validSeconds ?? 0
        let duration = Double(checkin.offsetsSeconds.last ?? 0)
        facts = [
            Fact(
                label: "Device",
                value: "\(checkin.deviceModel ?? "unknown model") " + DeviceLabel.shorten(checkin.deviceID)),
            Fact(label: "Source", value: checkin.source.rawValue),
            Fact(label: "Received", value: AdminFormat.time(checkin.receipt.receivedAt)),
            Fact(label: "Started", value: AdminFormat.time(checkin.startedAt)),
            Fact(label: "Duration", value: CheckinChart.clock(duration) + " (\(total) samples)"),
            Fact(label: "Valid seconds", value: "\(valid) of \(total) (\(AdminFormat.percent(valid, of: total)))"),
            Fact(
                label: "Level",
                value: checkin.levelDBFS.map { AdminFormat.decimal(Double($0) + offset) + " dB" } ?? "–"
            ),
            Fact(
                label: "Distance from venue",
                value: checkin.distanceMetres.map { "\(Int($0.rounded())) m" } ?? "no location sent"),
            Fact(
                label: "Local time from",
                value: checkin.zoneGuessed ? "sample offsets (venue zone unknown)" : "the venue's time zone"),
            Fact(label: "Judged", value: AdminFormat.time(checkin.judgedAt)),
        ]
        explanation = CheckinExplanation.sentences(
            .init(
                status: checkin.status, reasons: checkin.reasons, validSeconds: valid, totalSeconds: total,
                distanceMetres: checkin.distanceMetres, maxDistanceMetres: maxDistanceMetres, countedHours: 0,
                outlierHours: [], override: nil
            )
        )
        calibration =
            "Levels in calibrated dB: dBFS \(AdminFormat.signed(modelOffsetDB)) dB for the device model "
            + "\(AdminFormat.signed(referenceOffsetDB)) dB reference."
    }
}
