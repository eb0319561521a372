/// The first judgement of a check-in, made when it is received and before any cleaning, in two
/// parts, both here:
///
/// - where the phone said it was: a check-in whose phone was farther than ``maxDistanceMetres``
///   from the venue is `excluded` as ``JudgementReason/tooFarFromVenue`` (``verdict(phone:venue:)``);
/// - where the phone was meanwhile: one that overlaps in time a stored check-in of the same device
///   at another venue is `excluded` as ``overlapReason``. It needs the stored check-ins, so ingest's
///   statement asks it, taking ``overlapLookbackSeconds`` and ``overlapReason`` as its parameters.
///
/// Either reason stands at every later judgement; any other check-in is `pending` until the
/// aggregation worker judges it.
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

    /// The reason of a check-in that overlaps in time one of the same device at another venue: the
    /// earlier stands, and one itself excluded for this reason is no evidence against the next.
    public static let overlapReason = JudgementReason.elsewhereMeanwhile

    /// How far back from a check-in's start the overlap looks for the device's other check-ins (a
    /// check-in is shorter than this): what bounds the statement's read of the device's check-ins
    /// through the `(device_id, started_at)` index.
    public static let overlapLookbackSeconds = 86_400

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
