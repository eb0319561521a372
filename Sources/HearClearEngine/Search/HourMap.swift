/// Values for some of a week's 168 hours, packed: a bit per hour says which have one, and the
/// values of those hours sit in hour order in one array (its position is the count of set bits
/// before the hour). A venue with a few cells costs a few entries, not 168.
struct HourMap<Value: Sendable>: Sendable {
    private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private(set) var values: [Value] = []

    init() {}

    /// `init(_:)`: from 168 optional values, index `(weekday − 1) · 24 + hour`.
    init(_ all: [Value?]) {
        for (hour, value) in all.enumerated() {
            guard let value, hour < 168 else { continue }
            set(hour)
            values.append(value)
        }
    }

    /// `init(pairs:)`: from (hour, value) pairs in any order; a later pair for an hour wins.
    init(pairs: [(hour: Int, value: Value)]) {
        var all = [Value?](repeating: nil, count: 168)
        for (hour, value) in pairs where (0..<168).contains(hour) { all[hour] = value }
        self.init(all)
    }

    private func word(_ hour: Int) -> UInt64 {
        switch hour >> 6 {
        case 0: words.0
        case 1: words.1
        default: words.2
        }
    }

    private mutating func set(_ hour: Int) {
        let bit = UInt64(1) << UInt64(hour & 63)
        switch hour >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        default: words.2 |= bit
        }
    }

    /// Whether hour `hour` (0…167) has a value.
    func contains(_ hour: Int) -> Bool {
        guard (0..<168).contains(hour) else { return false }
        return word(hour) & (UInt64(1) << UInt64(hour & 63)) != 0
    }

    /// The value of hour `hour` (0…167), if it has one.
    subscript(hour: Int) -> Value? {
        guard contains(hour) else { return nil }
        let below = (UInt64(1) << UInt64(hour & 63)) - 1
        var rank = (word(hour) & below).nonzeroBitCount
        if hour >= 64 { rank += words.0.nonzeroBitCount }
        if hour >= 128 { rank += words.1.nonzeroBitCount }
        return values[rank]
    }

    /// Hours with a value.
    var count: Int { values.count }
}
