import Foundation
import LoudnessCore

/// What a contaminated check-in went wrong with (the kinds of junk of docs/ARCHITECTURE.md, "Cleaning a check-in").
enum Contamination: String, Codable, CaseIterable, Sendable {
    /// The phone spent part or all of the session in a pocket or bag: 15–25 dB too low.
    case pocket
    /// Handling noise: a few 1–2 second bumps 15–30 dB over the room.
    case bumps
    /// The meter repeats one value.
    case stuck
    /// A device that always reports full scale.
    case fullScale = "full_scale"
    /// Made at another venue: 8–15 dB off, and far away when a location is sent.
    case wrongVenue = "wrong_venue"

    /// Shares among contaminated check-ins of devices that are not full-scale ones.
    static let weights: [(Contamination, Double)] = [
        (.pocket, 0.35), (.bumps, 0.25), (.stuck, 0.15), (.wrongVenue, 0.25),
    ]
}

/// One synthetic check-in's per-second levels, dBFS.
struct SimulatedSession {
    static let referenceOffsetDB = 110.0
    /// Per-second fluctuation (speech and music): AR(1) with this standard deviation and lag-1
    /// correlation.
    static let fluctuationDB = 2.5
    static let correlation = 0.8

    var averageDBFS: [Double] = []
    var peakDBFS: [Double] = []

    /// A clean session at `trueDB` (calibrated) for `device`, shifted by the check-in's place in the
    /// room. The mean dB is lowered by σ²·ln10/20 so that the *energetic* mean is the true level.
    static func clean(trueDB: Double, device: SimulatedDevice, seconds: Int, random: inout SplitMix64)
        -> SimulatedSession
    {
        let sigma = fluctuationDB
        let mean =
            trueDB - referenceOffsetDB + device.biasDB + random.normal(sd: 1.5) - sigma * sigma * log(10) / 20
        let innovation = sigma * (1 - correlation * correlation).squareRoot()
        var state = random.normal(sd: sigma)
        var session = SimulatedSession()
        for _ in 0..<seconds {
            state = correlation * state + random.normal(sd: innovation)
            let average = mean + state
            session.averageDBFS.append(average)
            session.peakDBFS.append(average + random.double(in: 3...10))
        }
        return session
    }

    /// Spoils a clean session in the way `kind` says.
    mutating func contaminate(_ kind: Contamination, random: inout SplitMix64) {
        let count = averageDBFS.count
        switch kind {
        case .pocket:
            let depth = random.double(in: 15...25)
            let from = random.chance(0.5) ? 0 : Int(Double(count) * random.double(in: 0.55...0.7))
            for index in from..<count {
                averageDBFS[index] -= depth
                peakDBFS[index] -= depth
            }
        case .bumps:
            for _ in 0..<random.int(in: 3..<9) {
                let at = random.int(in: 0..<count)
                let rise = random.double(in: 15...30)
                for index in at..<min(count, at + random.int(in: 1..<3)) {
                    averageDBFS[index] = min(0, averageDBFS[index] + rise)
                    peakDBFS[index] = max(peakDBFS[index], averageDBFS[index] + 1)
                }
            }
        case .stuck:
            let value = random.chance(0.5) ? averageDBFS[0] : -30
            averageDBFS = Array(repeating: value, count: count)
            peakDBFS = Array(repeating: value + 6, count: count)
        case .fullScale:
            averageDBFS = (0..<count).map { _ in -random.double(in: 0.1...1.0) }
            peakDBFS = averageDBFS.map { min(0, $0 + 0.3) }
        case .wrongVenue:
            let shift = random.double(in: 8...15) * (random.chance(0.5) ? 1 : -1)
            averageDBFS = averageDBFS.map { $0 + shift }
            peakDBFS = peakDBFS.map { $0 + shift }
        }
    }

    /// Energetic mean of all seconds, dBFS (no cleaning).
    var leqDBFS: Double {
        Level.energeticMean(averageDBFS) ?? -.infinity
    }

    /// Mean linear amplitude of all seconds, as the 2013 client would have sent.
    var meanAmplitude: Double {
        averageDBFS.reduce(0) { $0 + pow(10, $1 / 20) } / Double(max(1, averageDBFS.count))
    }
}
