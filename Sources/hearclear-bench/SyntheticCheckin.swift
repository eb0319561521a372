import Foundation
import HearClearEngine
import LoudnessCore

/// Realistic check-in bodies for benchmarks. Each venue has its own level, from -50 to -20 dBFS;
/// each device its own bias (about ±2 dB); each check-in its own evening (about ±1 dB), and its
/// seconds wander like speech and music (a mean-reverting walk of about 1 dB plus 1-second
/// jitter), with peaks 3–12 dB above the average, times at +11:00. So check-ins at one venue
/// agree as real ones would, and the estimator sees cells like real cells.
///
/// The timestamps are formatted once; a check-in's numbers are written as integers of tenths, so
/// that the generator costs little next to the server it measures on the same machine.
struct SyntheticCheckin {
    /// Samples carry `+11:00`, as a Sydney phone writes them.
    static let sydneyOffsetMinutes = 11 * 60
    private var random: SplitMix64
    /// `{"t":"…","average":` of every second.
    private let secondPrefixes: [[UInt8]]
    let venues: Int
    /// Venue ids are `<venuePrefix><n>`, n in 0..<venues.
    let venuePrefix: String
    /// Adds the phone's own classes (docs/ARCHITECTURE.md, "The phone's own classes"): a YAMNet
    /// window every 10 s with three AudioSet labels and random confidences.
    let withClasses: Bool
    private let samples: Int
    static let classLabels = [
        "Speech", "Music", "Hubbub, speech noise, speech babble", "Bass drum", "Crowd", "Air conditioning",
    ]

    init(
        seed: UInt64, samples: Int, venues: Int, venuePrefix: String = "bench-venue-", withClasses: Bool = false
    ) {
        random = SplitMix64(seed: seed)
        self.venues = venues
        self.venuePrefix = venuePrefix
        self.withClasses = withClasses
        self.samples = samples
        let start = Date().addingTimeInterval(-Double(samples) - 120).timeIntervalSince1970.rounded(.down)
        secondPrefixes = (0..<samples).map { second in
            Array(
                "{\"t\":\"\(RFC3339.format(secondsSince1970: start + Double(second), offsetMinutes: Self.sydneyOffsetMinutes))\",\"average\":"
                    .utf8)
        }
    }

    /// A fixed number in [0, 1) for `key`, the same in every client and run.
    static func hashUnit(_ key: UInt64) -> Double {
        var generator = SplitMix64(seed: key &* 0x2545_F491_4F6C_DD1D)
        return generator.unit()
    }

    /// A check-in at a random venue of `venues` from one of 5000 devices.
    mutating func next() -> [UInt8] {
        let venue = random.next() % UInt64(venues)
        let device = random.next() % 5000
        return next(venue: venue, device: device)
    }

    /// A check-in at venue `<venuePrefix><venue>` from device `bench-device-<device>-…`.
    mutating func next(venue: UInt64, device: UInt64) -> [UInt8] {
        var body = Array(
            """
            {"id":"\(UUID().uuidString.lowercased())","venue":{"id":"\(venuePrefix)\(venue)","name":"Bench venue \(venue)",\
            "latitude":-33.87,"longitude":151.21,"timezone":"Australia/Sydney"},\
            "device":{"id":"bench-device-\(device)-c0ffee00-1111-2222","model":"iPhone15,2"},"unit":"dbfs",\
            "samples":[
            """.utf8
        )
        body.reserveCapacity(body.count + secondPrefixes.count * 64)
        let venueLevel = -50 + 30 * Self.hashUnit(venue)
        let deviceBias = (Self.hashUnit(device | 1 << 40) - 0.5) * 4
        let target = venueLevel + deviceBias + (random.unit() + random.unit() + random.unit() - 1.5) * 1.2
        var level = target
        for (second, prefix) in secondPrefixes.enumerated() {
            level += (random.unit() - 0.5) * 1.5 + 0.1 * (target - level)
            let average = min(-3, level + (random.unit() - 0.5) * 3)
            let peak = min(0, average + 3 + random.unit() * 9)
            if second > 0 { body.append(UInt8(ascii: ",")) }
            body += prefix
            Self.appendTenths(average, to: &body)
            body += Array(",\"peak\":".utf8)
            Self.appendTenths(peak, to: &body)
            body.append(UInt8(ascii: "}"))
        }
        body += Array("]".utf8)
        if withClasses { appendClasses(to: &body) }
        body += Array("}".utf8)
        return body
    }

    /// `,"classes":{…}`: windows of 10 s (the last one shorter) with three labels each.
    private mutating func appendClasses(to body: inout [UInt8]) {
        body += Array(",\"classes\":{\"classifier\":{\"name\":\"yamnet\",\"version\":\"1\"},".utf8)
        body += Array("\"vocabulary\":\"audioset\",\"windows\":[".utf8)
        var offset = 0
        while offset < samples {
            let seconds = min(10, samples - offset)
            if offset > 0 { body.append(UInt8(ascii: ",")) }
            body += Array("{\"offset\":\(offset),\"seconds\":\(seconds),\"top\":[".utf8)
            let first = Int(random.next() % UInt64(Self.classLabels.count))
            for rank in 0..<3 {
                if rank > 0 { body.append(UInt8(ascii: ",")) }
                let label = Self.classLabels[(first + rank) % Self.classLabels.count]
                // 0.450 … 0.900 for the first label, less for the others: "0.xyz".
                let permille = Int((0.9 - Double(rank) * 0.3) * (0.5 + random.unit() * 0.5) * 1000)
                body += Array("{\"label\":\"\(label)\",\"confidence\":0.".utf8)
                body += Array(String(1000 + permille).dropFirst().utf8)
                body.append(UInt8(ascii: "}"))
            }
            body += Array("]}".utf8)
            offset += seconds
        }
        body += Array("]}".utf8)
    }

    /// `value` with one decimal, e.g. `-38.4`.
    static func appendTenths(_ value: Double, to body: inout [UInt8]) {
        body += Array(oneDecimal(value).utf8)
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}
