/// A coordinated campaign at a venue (docs/ARCHITECTURE.md, "Campaigns"): new devices that check
/// in only here, far from the venue's level, all the same way.
public struct Campaign: Sendable, Equatable {
    /// Which way its check-ins lie from the venue's level.
    public enum Direction: String, Sendable, Equatable, Codable {
        case quieter, louder
    }

    public var direction: Direction
    /// Its devices (the judge's device ids), sorted.
    public var devices: [String]
    /// Its check-ins (ids), in input order.
    public var checkins: [String]
    /// The median over its devices of how far their check-ins lie from the cells, dB.
    public var deviationDB: Double
    /// How far its check-ins move the venue's cells as they weigh now (the largest move over
    /// the cells they are in), and as they would if each weighed as much as an established phone.
    public var movesDB: Double
    public var wouldMoveDB: Double

    public init(
        direction: Direction, devices: [String], checkins: [String], deviationDB: Double, movesDB: Double,
        wouldMoveDB: Double
    ) {
        self.direction = direction
        self.devices = devices
        self.checkins = checkins
        self.deviationDB = deviationDB
        self.movesDB = movesDB
        self.wouldMoveDB = wouldMoveDB
    }
}

/// Flags coordinated campaigns at one venue (docs/ARCHITECTURE.md, "Campaigns"). Among the
/// venue's check-ins of the last ``windowDays`` days, a device is a *suspect* when it is new (it
/// has not earned full trust, ``DeviceStanding/established``), checks in nowhere else, and its
/// check-ins lie ``minimumDeviationDB`` or more from the venue's cells (the median over its
/// check-ins). Suspects lying the same way make a campaign when they are at least
/// ``minimumDevices`` and their check-ins at least ``minimumShare`` of the venue's in the window.
/// An honest newcomer is no suspect: it lies near the cells.
public struct CampaignDetector: Sendable {
    public var windowDays = 14.0
    public var minimumDeviationDB = 6.0
    public var minimumDevices = 3
    public var minimumShare = 0.1

    public init() {}

    /// One usable check-in's piece as the judge weighed it.
    public struct Piece: Sendable, Equatable {
        public var checkin: String
        public var device: String
        public var time: Double?
        public var cell: LocalHour
        public var levelDB: Double
        public var standing: DeviceStanding

        public init(
            checkin: String, device: String, time: Double?, cell: LocalHour, levelDB: Double, standing: DeviceStanding
        ) {
            self.checkin = checkin
            self.device = device
            self.time = time
            self.cell = cell
            self.levelDB = levelDB
            self.standing = standing
        }
    }

    /// `campaign(_:cells:ignoring:)`: the campaign among `pieces` measured against `cells` (the
    /// venue's levels), leaving out devices in `ignoring` (an admin dismissed their campaign);
    /// the larger side when both ways qualify. Its moves are filled in by the judge.
    public func campaign(_ pieces: [Piece], cells: [LocalHour: Double], ignoring: Set<String> = []) -> Campaign? {
        let latest = pieces.compactMap(\.time).max()
        let recent = pieces.filter { piece in
            guard let latest, let time = piece.time else { return true }
            return latest - time <= windowDays * 86_400
        }
        let checkins = Set(recent.map(\.checkin)).count
        guard checkins > 0 else { return nil }
        var byDevice: [String: [Piece]] = [:]
        for piece in recent
        where !ignoring.contains(piece.device) && !piece.standing.established
            && !piece.standing.checksInElsewhere
        {
            byDevice[piece.device, default: []].append(piece)
        }
        var suspects: [Campaign.Direction: [(device: String, deviation: Double, checkins: [String])]] = [:]
        for (device, own) in byDevice {
            let residuals = own.compactMap { piece in cells[piece.cell].map { piece.levelDB - $0 } }
            guard let deviation = RobustStatistics.median(residuals), abs(deviation) >= minimumDeviationDB else {
                continue
            }
            suspects[deviation < 0 ? .quieter : .louder, default: []].append(
                (device, deviation, Array(Set(own.map(\.checkin)))))
        }
        let qualifying = suspects.compactMap { direction, members -> Campaign? in
            let ids = Set(members.flatMap(\.checkins))
            guard members.count >= minimumDevices, Double(ids.count) >= minimumShare * Double(checkins) else {
                return nil
            }
            return Campaign(
                direction: direction, devices: members.map(\.device).sorted(),
                checkins: pieces.map(\.checkin).filter { ids.contains($0) }.uniqued(),
                deviationDB: RobustStatistics.median(members.map(\.deviation)) ?? 0, movesDB: 0, wouldMoveDB: 0)
        }
        return qualifying.max { $0.checkins.count < $1.checkins.count }
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
