import Foundation
import LoudnessCore

// Times VenueJudge.judge on a synthetic venue whose check-ins are already cleaned (judged from
// their stored summaries, as the aggregation worker judges a venue it remembers) and prints the
// time per judgement; then SessionCleaner.clean, what each new check-in costs before that, on
// 300-second sessions with spikes and a dip. Arguments: check-ins (default 400), cells they spread over (default 1,
// the load test's worst case), devices (default 90 % of the check-ins). One check-in in 20 is
// junk, 25 dB too loud. Use `-c release`.
if CommandLine.arguments.dropFirst().first == "changes" {
    ChangeBench.run(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
let count = max(1, (arguments.first ?? nil) ?? 400)
let cellCount = min(168, max(1, (arguments.dropFirst().first ?? nil) ?? 1))
let deviceCount = max(1, (arguments.dropFirst(2).first ?? nil) ?? (count * 9 / 10))

let checkins = (0..<count).map { index -> VenueCheckin in
    let cell = index % cellCount
    let hour = LocalHour(cellIndex: cell)
    // A fixed spread of ±4 dB (the same venue on every run), and one check-in in 20 junk.
    let spread = Double((index * 37) % 81) / 10 - 4
    let level = -40 + Double(cell % 7) + spread + (index % 20 == 0 ? 25 : 0)
    let statistics = HourStatistics(
        localHour: hour, leqDBFS: level, l10DBFS: level + 3, l50DBFS: level - 1, l90DBFS: level - 5,
        maxPeakDBFS: level + 15, validSeconds: 120)
    var checkin = VenueCheckin(
        id: "checkin-\(index)", deviceID: "device-\(index % deviceCount)",
        summary: CleaningSummary(exclusion: nil, validSeconds: 120, levelDBFS: level, hours: [statistics]))
    // An hour apart, so the change detector and the recency weights see a history as the worker does.
    checkin.startedAt = 1_790_000_000 + Double(index) * 3_600
    return checkin
}

let judge = VenueJudge()
var best = Duration.seconds(1_000)
var outliers = 0
let clock = ContinuousClock()
for _ in 0..<20 {
    let start = clock.now
    let judged = judge.judge(checkins)
    best = min(best, clock.now - start)
    outliers = judged.checkins.filter { $0.status == .outlier }.count
}
let milliseconds = Double(best.components.attoseconds) / 1e15 + Double(best.components.seconds) * 1000
print("\(count) check-ins, \(cellCount) cell(s), \(deviceCount) devices: \(outliers) outliers")
print(
    String(
        format: "%.3f ms a judgement (best of 20), %.2f µs a check-in", milliseconds,
        milliseconds * 1000 / Double(count)))

// Cleaning: 100 sessions of 300 seconds (a fixed wobble, a spike every 37 s, a 20-second dip).
let sessions = try (0..<100).map { session -> SessionSamples in
    let averages = (0..<300).map { second -> Double in
        let wobble = Double((second * 13 + session * 7) % 41) / 10 - 2
        let spike = second % 37 == 5 ? 18.0 : 0
        let dip = (150..<170).contains(second) ? -25.0 : 0
        return ((-35 + wobble + spike + dip) * 10).rounded() / 10
    }
    return try SessionSamples(
        offsetsSeconds: averages.indices.map(Double.init), averageDBFS: averages, peakDBFS: averages.map { $0 + 10 })
}
let cleaner = SessionCleaner()
var bestCleaning = Duration.seconds(1_000)
var rejected = 0
for _ in 0..<20 {
    let start = clock.now
    rejected = 0
    for session in sessions { rejected += cleaner.clean(session).rejections.filter { $0 != nil }.count }
    bestCleaning = min(bestCleaning, clock.now - start)
}
let cleaningMicroseconds =
    (Double(bestCleaning.components.attoseconds) / 1e12 + Double(bestCleaning.components.seconds) * 1e6)
    / Double(sessions.count)
print(
    String(
        format: "%.1f µs to clean a 300-second check-in (best of 20 over 100; %d seconds rejected in all)",
        cleaningMicroseconds, rejected))
