import Foundation
import LoudnessCore

/// A report of wrong data someone at a venue of the city files (`simulate --reports`).
struct SimulatedReport: Sendable {
    var venue: String
    var device: String
    var at: Date
    var felt: ReportFeeling
    var comment: String?
}

extension SimulatedCity {
    static let reportComments: [ReportFeeling: [String]] = [
        .quieter: [
            "Half empty tonight, we talked easily.", "The music was off when we came in.",
            "Quiet corner at the back, no trouble hearing.",
        ],
        .louder: [
            "A band started at nine.", "A football match on the big screen.",
            "Birthday party at the long table, could not hear a thing.",
        ],
        .aboutRight: ["As the page said.", "Fine for a chat."],
    ]

    /// `count` reports about hours the city has clean check-ins in, each by the phone that was
    /// there at that moment; a "quieter" or "louder" one is followed by a second phone saying the
    /// same about the same hour (an hour two devices dispute). From the seed alone, and no draw of
    /// the city's own generator, so the city is the same with or without them.
    func reports(count: Int, seed: UInt64) -> [SimulatedReport] {
        let clean = checkins.filter { $0.truth.contamination == nil && $0.truth.fake == nil }
        let honest = devices.filter { !$0.fullScale && $0.role == nil }
        guard count > 0, !clean.isEmpty, honest.count > 1 else { return [] }
        var random = SplitMix64(seed: seed ^ 0x5245_504F_5254)
        var reports: [SimulatedReport] = []
        while reports.count < count {
            let planned = random.pick(clean)
            let felt = random.pick(ReportFeeling.allCases)
            func comment() -> String? {
                random.chance(0.7) ? Self.reportComments[felt].map { random.pick($0) } : nil
            }
            reports.append(
                SimulatedReport(
                    venue: planned.truth.venue, device: planned.truth.device,
                    at: planned.start.addingTimeInterval(Double(planned.seconds / 2)), felt: felt, comment: comment()))
            guard reports.count < count, felt != .aboutRight else { continue }
            var other = random.pick(honest)
            if other.id == planned.truth.device { other = honest.first { $0.id != planned.truth.device } ?? other }
            reports.append(
                SimulatedReport(
                    venue: planned.truth.venue, device: other.id, at: planned.start.addingTimeInterval(30),
                    felt: felt, comment: comment()))
        }
        return reports
    }
}
