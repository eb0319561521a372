import Foundation
import LoudnessCore
import Testing

/// The first judgement at receipt, and the distance it rests on. Expected distances are the
/// haversine formula with R = 6,371,008.8 m computed independently in Python's `math` module
/// (`2*R*asin(sqrt(sin(dφ/2)**2 + cos φ1 cos φ2 sin(dλ/2)**2))`).
@Suite("Intake rule")
struct IntakeRuleTests {
    @Test("one degree of latitude is π·R/180 = 111,195.08 m")
    func oneDegreeOfLatitude() {
        let metres = GreatCircle.distanceMetres(fromLatitude: 0, longitude: 0, toLatitude: 1, longitude: 0)
        #expect(abs(metres - 111_195.080) < 0.01)
    }

    @Test("London (51.5007, −0.1246) to Paris (48.8584, 2.2945): 340,539.39 m, as Python computes it")
    func londonToParis() {
        let metres = GreatCircle.distanceMetres(
            fromLatitude: 51.5007, longitude: -0.1246, toLatitude: 48.8584, longitude: 2.2945)
        #expect(abs(metres - 340_539.39) < 0.01)
    }

    @Test("without a location a check-in waits for the worker, with no distance")
    func noLocation() {
        let verdict = IntakeRule().verdict(phone: nil, venue: (-33.8688, 151.2093))
        #expect(verdict == IntakeRule.Verdict(status: .pending, reasons: [], distanceMetres: nil))
    }

    @Test("244.6 m from the venue is pending; 300.2 m is excluded as too far (default 250 m)")
    func distanceDecides() throws {
        let rule = IntakeRule()
        #expect(rule.maxDistanceMetres == 250)
        let near = rule.verdict(phone: (-33.8710, 151.2093), venue: (-33.8688, 151.2093))
        #expect(near.status == .pending)
        #expect(near.reasons.isEmpty)
        #expect(abs(try #require(near.distanceMetres) - 244.629) < 0.01)

        let far = rule.verdict(phone: (-33.8688 + 0.0027, 151.2093), venue: (-33.8688, 151.2093))
        #expect(far.status == .excluded)
        #expect(far.reasons == [.tooFarFromVenue])
        #expect(abs(try #require(far.distanceMetres) - 300.227) < 0.01)
    }

    @Test("the limit is configurable, and a phone exactly at it is not too far")
    func configurableLimit() {
        let phone = (latitude: 1.0, longitude: 0.0)
        let atLimit = IntakeRule(
            maxDistanceMetres: GreatCircle.distanceMetres(
                fromLatitude: 1, longitude: 0, toLatitude: 0, longitude: 0))
        #expect(atLimit.verdict(phone: phone, venue: (0, 0)).status == .pending)
        #expect(IntakeRule(maxDistanceMetres: 100_000).verdict(phone: phone, venue: (0, 0)).status == .excluded)
    }

    @Test("reasons are their raw identifiers on the wire, and cleaning's verdicts are reasons")
    func reasonsEncodeAsIdentifiers() throws {
        let reasons: [JudgementReason] = [.tooFarFromVenue, JudgementReason(.stuckMeter), "someday_new"]
        let json = String(decoding: try JSONEncoder().encode(reasons), as: UTF8.self)
        #expect(json == #"["too_far_from_venue","stuck_meter","someday_new"]"#)
        #expect(try JSONDecoder().decode([JudgementReason].self, from: Data(json.utf8)) == reasons)
    }
}
