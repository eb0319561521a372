/// The first judgement of a check-in, made when it is received and before any cleaning: where the
/// phone said it was. A check-in whose phone was farther than ``maxDistanceMetres`` from the venue
/// is `excluded` as ``JudgementReason/tooFarFromVenue`` (the reason stands at every later
/// judgement); any other is `pending` until the aggregation worker judges it.
public struct IntakeRule: Sendable, Equatable {
    /// The first status, its reasons, and the distance measured (`nil` without a location).
    public struct Verdict: Sendable, Equatable {
        public var status: CheckinStatus
        public var reasons: [JudgementReason]
        public var distanceMetres: Double?

        public init(status: CheckinStatus, reasons: [JudgementReason], distanceMetres: Double?) {
            self.status = status
            self.reasons = reasons
            self.distanceMetres = distanceMetres
        }
    }

    /// 250 m by default (`--max-distance-metres`).
    public var maxDistanceMetres: Double

    public init(maxDistanceMetres: Double = 250) {
        self.maxDistanceMetres = maxDistanceMetres
    }

    /// The verdict for a phone at `phone` (when it said) and a venue at `venue`.
    public func verdict(
        phone: (latitude: Double, longitude: Double)?, venue: (latitude: Double, longitude: Double)
    ) -> Verdict {
        guard let phone else { return Verdict(status: .pending, reasons: [], distanceMetres: nil) }
        let metres = GreatCircle.distanceMetres(
            fromLatitude: phone.latitude, longitude: phone.longitude, toLatitude: venue.latitude,
            longitude: venue.longitude)
        guard metres > maxDistanceMetres else { return Verdict(status: .pending, reasons: [], distanceMetres: metres) }
        return Verdict(status: .excluded, reasons: [.tooFarFromVenue], distanceMetres: metres)
    }
}
