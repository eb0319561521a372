/// How far the crowd trusts a device (docs/ARCHITECTURE.md, "Devices that earn trust"): a device
/// earns weight by agreeing, over time, with *trusted* devices at the venue-hours they share, so a
/// burst of fresh ids cannot move a venue, and fakes that agree only with each other earn nothing.
///
/// Each of its co-located check-ins (in time order) is compared with the level the other devices
/// of its cell give (offsets applied: the trust-weighted median of those at least half as
/// trusted as the most trusted of them), weighing `ρ`, their trust summed (at most 1). It
/// *agrees* when it lies within ``toleranceDB`` of it. Twelve fresh ids beside an established
/// phone are no reference (its level is the phone's), so they cannot turn it; among themselves,
/// where no trusted phone is, fresh ids earn a tenth each.
///
/// * **Growth**: `min(1, Σ ρ over agreements / agreementsForFull)`: full after
///   ``agreementsForFull`` (4) agreeing check-ins among trusted devices, so an honest newcomer
///   whose five check-ins met the crowd weighs in full even if one of them missed. A fresh id starts at the
///   ``floor`` (0.1): it counts, a tenth as much as an established phone.
/// * **Loss**: over its latest ``recentWindow`` (10) co-located check-ins, the share that disagreed
///   (`Σ ρ·disagreed / (Σ ρ + 2)`, two agreeing pseudo-check-ins so one honest miss among a few is
///   no share): none lost up to ``tolerableShare`` (25 %), all from ``intolerableShare`` (50 %),
///   linearly between. A slow burn that agreed for weeks loses its weight within a few attacks;
///   an honest phone's rare odd evening (a few per hundred) costs nothing.
///
/// `trust = floor + (1 − floor) · growth · (1 − loss)`.
public struct DeviceTrust: Sendable, Equatable {
    /// A fresh device's trust: what it weighs before it has agreed with anyone.
    public static let floor = 0.1
    /// Agreeing check-ins (among trusted devices) for full trust.
    public var agreementsForFull = 4.0
    /// Within this of the others' level, a check-in agrees, dB: about 2.3 SDs of an honest
    /// check-in's difference from the others of its cell (some 3.5 dB: other evenings' crowds,
    /// other places in the room, other phones), so an honest phone disagrees about once in
    /// thirty; a fake 12 dB off almost always.
    public var toleranceDB = 8.0
    /// Co-located check-ins the disagreeing share is taken over.
    public var recentWindow = 10
    /// Disagreeing share that costs nothing; and from which all trust is lost.
    public var tolerableShare = 0.25
    public var intolerableShare = 0.5
    /// Less trust than this in the others and the check-in says nothing.
    public var minimumReferenceTrust = 0.2

    public init() {}

    /// One co-located check-in of the device.
    public struct Evidence: Sendable, Equatable {
        /// When it was made, seconds since 1970 (orders the evidence).
        public var time: Double
        /// Its level less the others' level in its cell, dB.
        public var residualDB: Double
        /// The trust of the other devices of its cell it is compared with, summed.
        public var referenceTrust: Double

        public init(time: Double, residualDB: Double, referenceTrust: Double) {
            self.time = time
            self.residualDB = residualDB
            self.referenceTrust = referenceTrust
        }
    }

    /// A device's trust and what it rests on.
    public struct Standing: Sendable, Equatable {
        public var trust: Double
        /// Agreements weighed by the others' trust.
        public var agreements: Double
        /// Check-ins that disagreed, among the latest ``recentWindow``.
        public var recentDisagreements: Int
        /// Co-located check-ins that counted (with enough trust in the others).
        public var checkins: Int

        /// Full trust: it weighs as much as any phone.
        public var established: Bool { trust >= 1 - 1e-9 }
    }

    /// `standing(_:)`: the trust that `evidence` (any order; sorted by time here) earns.
    public func standing(_ evidence: [Evidence]) -> Standing {
        var earned = 0.0
        var recent: [(disagreed: Bool, rho: Double)] = []
        var counted = 0
        for item in evidence.sorted(by: { $0.time < $1.time }) {
            let rho = min(1, item.referenceTrust)
            guard rho >= minimumReferenceTrust else { continue }
            counted += 1
            let disagreed = abs(item.residualDB) > toleranceDB
            if !disagreed { earned += rho }
            recent.append((disagreed, rho))
            if recent.count > recentWindow { recent.removeFirst() }
        }
        let growth = min(1, earned / agreementsForFull)
        let weight = recent.reduce(0) { $0 + $1.rho }
        let share = recent.reduce(0) { $0 + ($1.disagreed ? $1.rho : 0) } / (weight + 2)
        let loss = min(1, max(0, (share - tolerableShare) / (intolerableShare - tolerableShare)))
        return Standing(
            trust: Self.floor + (1 - Self.floor) * growth * (1 - loss), agreements: earned,
            recentDisagreements: recent.count { $0.disagreed }, checkins: counted)
    }
}
