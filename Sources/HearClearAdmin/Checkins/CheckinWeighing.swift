import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// What a check-in weighed in its cells and why, in sentences (docs/ARCHITECTURE.md, "What a
/// check-in weighs", "Phones that drift"), from its venue judged again in memory and the offsets
/// in force at its time.
enum CheckinWeighing {
    static let judge = VenueJudge()

    static func sentences(_ judged: VenueRejudgement.Checkin?, referenceTrust: Double?, offsets: AdminCheckinOffsets?)
        -> [String]
    {
        var sentences: [String] = []
        if let judged {
            let weight = judged.weight
            sentences.append(
                "It weighs \(figure(weight.total)) of a full check-in in its cells: device trust "
                    + "\(figure(weight.trust)) × recency \(figure(weight.recency)) × change \(figure(weight.change)).")
            let floor =
                judged.deviceTrust <= DeviceTrust.floor
                ? " (the floor: its device has not yet agreed with trusted devices)" : ""
            let against =
                weight.trust < 1
                ? "against the venue's reference of \(referenceTrust.map(figure) ?? "?")"
                : "at or above the venue's reference"
            sentences.append(
                "Device trust: its device's trust is \(figure(judged.deviceTrust))\(floor), \(against) (the 90th "
                    + "percentile of its devices' trust), so it counts \(figure(weight.trust)).")
            let halfLife = judge.recency.halfLifeDays
            if let halfLife, weight.recency < 1, weight.recency > 0 {
                let days = -log2(weight.recency) * halfLife
                sentences.append(
                    "Recency: it was made \(days < 2 ? String(format: "%.1f", days) : String(Int(days.rounded()))) days "
                        + "before the venue's latest check-in; with a half-life of \(Int(halfLife)) days it counts "
                        + "\(figure(weight.recency)).")
            } else {
                sentences.append("Recency: it is among the venue's latest check-ins, so it counts in full (1.00).")
            }
            if weight.change < 1 || weight.shiftDB != 0 {
                sentences.append(
                    "Change: it was made before a change of the venue's level, so its level is brought forward by "
                        + "\(AdminFormat.signed(weight.shiftDB)) dB and it counts \(figure(weight.change)).")
            } else {
                sentences.append("Change: no change of the venue's level since it was made; it is not brought forward.")
            }
            sentences.append("Offset in force at its time: \(AdminFormat.offset(judged.offsetDB)).")
        }
        if let offsets { sentences += offsetSentences(offsets, at: judged?.startedAt) }
        return sentences
    }

    /// The pieces of the offset: the model's (and its step), its OS version's, its device's.
    static func offsetSentences(_ offsets: AdminCheckinOffsets, at time: Date?) -> [String] {
        var sentences: [String] = []
        let model = offsets.model ?? "unknown model"
        if let osOffset = offsets.osOffsetDB, let os = offsets.os {
            sentences.append(
                "Its model \(model) on \(os) has its own offset, \(AdminFormat.offset(osOffset)), in place of the model's."
            )
        } else if let offset = offsets.modelOffsetDB {
            if let since = offsets.modelSince, let earlier = offsets.modelEarlierOffsetDB {
                let applies = time.map { $0 >= since ? "applies to it" : "does not: the earlier one does" } ?? ""
                sentences.append(
                    "Its model \(model) stepped: since \(AdminFormat.minute(since)) UTC \(AdminFormat.offset(offset)) "
                        + "(\(applies)); before: \(AdminFormat.offset(earlier)).")
            } else {
                sentences.append("Its model \(model): \(AdminFormat.offset(offset)).")
            }
        } else {
            sentences.append("Its model \(model) has no offset in force (0 dB).")
        }
        if let os = offsets.os, offsets.osOffsetDB == nil {
            sentences.append("Its OS version (\(os)) has no offset of its own.")
        }
        if let device = offsets.deviceOffsetDB {
            var text = "Its device's own deviation: \(AdminFormat.offset(device))"
            if let step = offsets.deviceStepDB, let since = offsets.deviceSince {
                text +=
                    "; the device stepped by \(AdminFormat.signed(step)) dB on \(AdminFormat.minute(since)) UTC "
                    + "(before: \(AdminFormat.offset(offsets.deviceEarlierOffsetDB)))"
                if let time {
                    text += time >= since ? ", after this check-in's start" : "; this check-in is from before"
                }
            }
            sentences.append(text + ".")
        }
        return sentences
    }

    static func figure(_ value: Double) -> String { String(format: "%.2f", value) }
}
