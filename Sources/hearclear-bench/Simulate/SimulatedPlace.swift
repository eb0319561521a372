import Foundation

/// A real city's centre to put the simulated venues in (`simulate --place`), with names of the
/// kind found there: invented, one list per kind of venue, none of them a real business's.
struct SimulatedPlace: Sendable {
    var name: String
    var zone: String
    var latitude: Double
    var longitude: Double
    /// Venues lie within about this many metres of the centre, north–south and east–west.
    var radiusMetres: Double
    var names: [SimulatedVenue.Kind: [String]]

    static let all = [berlin]

    /// Central Berlin: Mitte around the Spree island, about 1.2 km each way.
    static let berlin = SimulatedPlace(
        name: "berlin", zone: "Europe/Berlin", latitude: 52.5186, longitude: 13.4050, radiusMetres: 1200,
        names: [
            .cafe: [
                "Café Kranich", "Kaffeehaus Linde", "Milchbar am Kanal", "Café Morgenrot", "Rösterei Spreeufer",
                "Café Hinterhof", "Kaffeestube Lenz", "Café Nordlicht", "Teestube Mohn", "Café Zuckerhut",
            ],
            .pub: [
                "Zum Goldenen Anker", "Kneipe Eckstein", "Bierstube Alt-Mitte", "Zur Letzten Runde",
                "Schankwirtschaft Fass", "Zum Roten Hahn", "Bar Kiezklang", "Destille Spreeblick",
            ],
            .restaurant: [
                "Restaurant Lindenhof", "Trattoria Ponte", "Gasthaus Zwei Linden", "Bistro Kastanie",
                "Speisezimmer Mitte", "Küche am Markt", "Restaurant Fernweh", "Brasserie Weidendamm",
            ],
            .club: [
                "Club Nachtfalter", "Klub Untergrund", "Halle Neun", "Club Bassgarten", "Tanzwerk Ost",
                "Club Mondschein",
            ],
        ])

    static func named(_ name: String) -> SimulatedPlace? { all.first { $0.name == name.lowercased() } }

    /// Names `venues` (made in this place) from the lists, in order within each kind; past the end
    /// of a kind's list the names come round again with a number ("Café Kranich 2").
    func name(_ venues: inout [SimulatedVenue]) {
        var counts: [SimulatedVenue.Kind: Int] = [:]
        for index in venues.indices {
            let kind = venues[index].kind
            let list = names[kind] ?? []
            guard !list.isEmpty else { continue }
            let count = counts[kind, default: 0]
            counts[kind] = count + 1
            let round = count / list.count
            venues[index].name = list[count % list.count] + (round > 0 ? " \(round + 1)" : "")
        }
    }
}
