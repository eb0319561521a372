import Foundation
import Testing

@testable import LoudnessCore

/// How a device's trust grows and falls (docs/ARCHITECTURE.md, "Devices that earn trust"), each
/// figure from `trust = 0.1 + 0.9 · growth · (1 − loss)` by hand.
@Suite("Device trust")
struct DeviceTrustTests {
    static func evidence(_ residuals: [Double], referenceTrust: Double = 1) -> [DeviceTrust.Evidence] {
        residuals.enumerated().map {
            DeviceTrust.Evidence(time: Double($0.offset), residualDB: $0.element, referenceTrust: referenceTrust)
        }
    }

    @Test func aFreshDeviceStartsAtTheFloor() {
        let standing = DeviceTrust().standing([])
        #expect(standing.trust == DeviceTrust.floor)
        #expect(standing.trust == 0.1)
        #expect(!standing.established)
    }

    @Test(
        "an honest newcomer grows a quarter of the way with each agreement among trusted phones",
        arguments: [
            (1, 0.325), (2, 0.55), (3, 0.775), (4, 1.0), (5, 1.0), (9, 1.0),
        ])
    func growth(agreements: Int, expected: Double) {
        // growth = min(1, k / 4): 0.1 + 0.9 · k/4 → 0.325, 0.55, 0.775, then full.
        let residuals = (0..<agreements).map { $0.isMultiple(of: 2) ? 2.5 : -7.0 }  // within 8 dB
        let standing = DeviceTrust().standing(Self.evidence(residuals))
        #expect(abs(standing.trust - expected) < 1e-9)
        #expect(standing.established == (agreements >= 4))
        #expect(standing.recentDisagreements == 0)
    }

    @Test func agreeingWithHalfTrustedPhonesEarnsHalf() {
        // ρ = 0.5 for four agreements: Σρ = 2, growth 0.5 → 0.1 + 0.45 = 0.55.
        let standing = DeviceTrust().standing(Self.evidence([0, 1, -1, 0.5], referenceTrust: 0.5))
        #expect(abs(standing.trust - 0.55) < 1e-9)
        #expect(abs(standing.agreements - 2) < 1e-9)
    }

    @Test func fakesThatAgreeOnlyWithEachOtherEarnNothing() {
        // Their cells' others are fresh ids too: ρ = 0.1 < 0.2, no check-in counts.
        let standing = DeviceTrust().standing(Self.evidence([Double](repeating: 0, count: 50), referenceTrust: 0.1))
        #expect(standing.trust == DeviceTrust.floor)
        #expect(standing.checkins == 0)
    }

    @Test func anOddEveningCostsNothingAndAnAttackCostsAll() {
        let honest = [Double](repeating: 1, count: 20)
        // One miss among the last ten: share 1/(10+2) ≈ 0.083 < 0.25 → no loss.
        let oneMiss = DeviceTrust().standing(Self.evidence(honest + [9] + [Double](repeating: 0, count: 9)))
        #expect(oneMiss.trust == 1)
        #expect(oneMiss.recentDisagreements == 1)
        // Three misses: share 3/12 = 0.25, still no loss; four: 4/12 → loss (1/3 − 0.25)/0.25 =
        // 1/3 → 0.1 + 0.9 · 2/3 = 0.7.
        let three = DeviceTrust().standing(Self.evidence(honest + [9, -9, 10] + [Double](repeating: 0, count: 7)))
        #expect(three.trust == 1)
        let four = DeviceTrust().standing(Self.evidence(honest + [9, -9, 10, -12] + [Double](repeating: 0, count: 6)))
        #expect(abs(four.trust - 0.7) < 1e-9)
        // A slow burn: weeks of agreement, then six attacks among the last ten: share 6/12 = 0.5 →
        // all lost, back to the floor.
        let burned = DeviceTrust().standing(Self.evidence(honest + [Double](repeating: -12, count: 6)))
        #expect(burned.trust == DeviceTrust.floor)
        #expect(burned.agreements == 20)
    }

    @Test func theEvidenceIsTakenInTimeOrder() {
        // The same check-ins sent in any order: the latest ten decide the loss.
        var items = Self.evidence([Double](repeating: 0, count: 20) + [Double](repeating: 12, count: 6))
        items.reverse()
        #expect(DeviceTrust().standing(items).trust == DeviceTrust.floor)
    }
}

/// What a check-in weighs for its age (docs/ARCHITECTURE.md, "What a check-in weighs").
@Suite("Recency weight")
struct RecencyWeightTests {
    @Test func halfAtTheHalfLifeAQuarterAtTwice() {
        let recency = RecencyWeight(halfLifeDays: 30)
        #expect(recency.weight(ageSeconds: 0) == 1)
        #expect(abs(recency.weight(ageSeconds: 30 * 86_400) - 0.5) < 1e-12)
        #expect(abs(recency.weight(ageSeconds: 60 * 86_400) - 0.25) < 1e-12)
        #expect(recency.weight(ageSeconds: -5) == 1)
        #expect(RecencyWeight(halfLifeDays: nil).weight(ageSeconds: 1e9) == 1)
    }

    @Test func aWeightIsTheProductOfItsFactors() {
        #expect(abs(CheckinWeight(trust: 0.5, recency: 0.5, change: 0.5).total - 0.125) < 1e-12)
    }
}
