import Foundation
import HearClearModel
import LoudnessCore

/// Why a check-in was judged as it was, in sentences, from its status, reasons and figures. The
/// thresholds quoted are the engine's own (``CleaningRules``, ``HourStatistics``, ``CellEstimator``).
enum CheckinExplanation {
    struct Facts {
        var status: CheckinStatus
        var reasons: [JudgementReason]
        var validSeconds: Int
        var totalSeconds: Int
        var distanceMetres: Double?
        var maxDistanceMetres: Double
        var countedHours: Int
        var outlierHours: [String]
        var override: AggregationInput.AdminDecision?
    }

    static let rules = CleaningRules()

    static func sentences(_ facts: Facts) -> [String] {
        var sentences: [String] = []
        if let override = facts.override {
            sentences.append(
                override == .include
                    ? "An admin forced it in: it counts in its cells whatever cleaning and the outlier test say."
                    : "An admin forced it out: it counts in no cell."
            )
            if override == .include, !facts.outlierHours.isEmpty {
                sentences.append(
                    "Without that, the outlier test would have left it out: \(facts.outlierHours.joined(separator: ", "))."
                )
            }
        }
        if facts.status == .pending {
            sentences.append("Not judged yet: the aggregation worker has not reached its venue.")
            return sentences
        }
        for reason in facts.reasons where reason != JudgementReason.adminIncluded {
            sentences.append(sentence(for: reason, facts))
        }
        if facts.status == .included {
            let share = AdminFormat.percent(facts.validSeconds, of: facts.totalSeconds)
            let hours = facts.countedHours == 1 ? "1 venue-local hour" : "\(facts.countedHours) venue-local hours"
            sentences.append(
                "Cleaning kept \(facts.validSeconds) of \(facts.totalSeconds) seconds (\(share)); it counts in \(hours)."
            )
        }
        return sentences
    }

    static func sentence(for reason: JudgementReason, _ facts: Facts) -> String {
        let share = AdminFormat.percent(facts.validSeconds, of: facts.totalSeconds)
        switch reason {
        case JudgementReason.tooFarFromVenue:
            let distance = facts.distanceMetres.map { "\(Int($0.rounded())) m" } ?? "too far"
            return
                "The phone was \(distance) from the venue; check-ins farther than \(Int(facts.maxDistanceMetres)) m are excluded."
        case JudgementReason.elsewhereMeanwhile:
            return
                "The same device had already sent a check-in at another venue for an overlapping time; a phone cannot be at two venues at once, so this one is excluded (the earlier one stands)."
        case JudgementReason.deviceExcluded:
            return "An admin excluded its device, so none of that device's check-ins count."
        case JudgementReason.adminExcluded:
            return "An admin excluded this check-in."
        case JudgementReason(.tooFewValidSeconds):
            return
                "Only \(facts.validSeconds) seconds survived cleaning; a check-in needs at least \(rules.minimumValidSeconds)."
        case JudgementReason(.tooLittleValidShare):
            return
                "Only \(facts.validSeconds) of \(facts.totalSeconds) seconds (\(share)) survived cleaning; at least "
                + "\(Int((rules.minimumValidShare * 100).rounded())) % must."
        case JudgementReason(.stuckMeter):
            return
                "Most removed seconds were a stuck meter (\(rules.stuckMinimumRun) or more seconds without change), "
                + "and too few were left (\(share) valid)."
        case JudgementReason(.dropout):
            return
                "Most removed seconds were a dropout (a phone in a pocket or bag), and too few were left (\(share) valid)."
        case JudgementReason.tooFewSecondsPerHour:
            return
                "Cleaning kept it, but no venue-local hour had the \(HourStatistics.minimumValidSeconds) valid seconds "
                + "a piece needs to count in a cell."
        case JudgementReason.cellOutlier:
            let hours = facts.outlierHours.isEmpty ? "" : " (\(facts.outlierHours.joined(separator: ", ")))"
            return
                "Its level sat too far from the other check-ins of the same hour\(hours): |modified z| over "
                + "\(AdminFormat.decimal(CellEstimator().outlierThreshold)), so it was left out of every cell."
        case JudgementReason.invalidSamples:
            return "Its stored samples could not be read as a session."
        default:
            return "Reason: \(reason.rawValue.replacingOccurrences(of: "_", with: " "))."
        }
    }
}
