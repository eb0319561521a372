import Foundation

/// What a check-in weighed in its cells and why (docs/ARCHITECTURE.md, "What a check-in weighs"):
/// the product of its device's trust relative to the venue's, its recency and, made before a change
/// of the venue, the weight of a check-in brought forward.
public struct CheckinWeight: Sendable, Equatable {
    /// Its device's trust over the venue's reference trust (the 90th percentile of its devices'),
    /// at most 1.
    public var trust: Double
    /// `2^(−age / half-life)`, its age counted from the venue's latest check-in.
    public var recency: Double
    /// ``VenueChangeDetector/broughtForwardWeight`` for each change since in its hour, else 1.
    public var change: Double
    /// The shift added to its level for the changes since, in its first hour that moved (dB; 0
    /// when none).
    public var shiftDB: Double

    /// `init(trust:recency:change:shiftDB:)`: memberwise.
    public init(trust: Double = 1, recency: Double = 1, change: Double = 1, shiftDB: Double = 0) {
        self.trust = trust
        self.recency = recency
        self.change = change
        self.shiftDB = shiftDB
    }

    /// What it weighs in its cells, 0…1.
    public var total: Double { trust * recency * change }
}

/// How much older check-ins count: a half-life (docs/ARCHITECTURE.md, "What a check-in weighs").
/// Weights are relative within a venue, so the age is counted from the venue's latest check-in:
/// the same judgement at any wall-clock time, and from memory as from a full read.
public struct RecencyWeight: Sendable, Equatable {
    /// Days after which a check-in counts half. Default 30, near the 4–6 weeks that review sites
    /// favour; `nil`: every check-in counts alike.
    public var halfLifeDays: Double?

    /// `init(halfLifeDays:)`.
    public init(halfLifeDays: Double? = 30) {
        self.halfLifeDays = halfLifeDays
    }

    /// `weight(ageSeconds:)`: `2^(−age / half-life)`; 1 for a negative age or without a half-life.
    public func weight(ageSeconds: Double) -> Double {
        guard let halfLifeDays, halfLifeDays > 0, ageSeconds > 0 else { return 1 }
        return pow(2, -ageSeconds / (halfLifeDays * 86_400))
    }
}
