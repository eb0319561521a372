import Foundation
import HearClearEngine
import LoudnessCore

/// A synthetic venue with a true weekday × hour loudness profile in calibrated dB.
struct SimulatedVenue: Codable, Sendable {
    enum Kind: String, Codable, CaseIterable, Sendable {
        case cafe, pub, restaurant, club
    }

    var id: String
    var name: String
    var timezone: String
    var latitude: Double
    var longitude: Double
    var kind: Kind
    /// The venue's own level at its quietest open hour, calibrated dB.
    var baseDB: Double

    static let zones: [(zone: String, latitude: Double, longitude: Double)] = [
        ("Australia/Sydney", -33.87, 151.21), ("America/New_York", 40.73, -73.99), ("Europe/London", 51.51, -0.13),
        ("Europe/Berlin", 52.52, 13.40),
    ]

    /// A venue of the city; with `place`, in that city's centre (the same draws as without, so the
    /// rest of the city is the one the seed makes anywhere).
    static func make(index: Int, seed: UInt64, place: SimulatedPlace? = nil, random: inout SplitMix64)
        -> SimulatedVenue
    {
        let kind = random.pick(Kind.allCases)
        let zone = random.pick(zones)
        let latitude = random.double(in: -0.05...0.05)
        let longitude = random.double(in: -0.05...0.05)
        let base: ClosedRange<Double> =
            switch kind {
            case .cafe: 63...68
            case .pub: 67...72
            case .restaurant: 65...70
            case .club: 80...86
            }
        let id = "sim-\(seed)-\(index)"
        let baseDB = random.double(in: base)
        guard let place else {
            return SimulatedVenue(
                id: id, name: "Simulated \(kind.rawValue) \(index)", timezone: zone.zone,
                latitude: zone.latitude + latitude, longitude: zone.longitude + longitude, kind: kind, baseDB: baseDB)
        }
        // ±0.05° scaled to the centre's radius (a degree of longitude is shorter by cos(latitude)).
        // Named as there by `SimulatedPlace.name` once the city's venues are all made.
        let scale = place.radiusMetres / 111_320 / 0.05
        return SimulatedVenue(
            id: id, name: "Simulated \(kind.rawValue) \(index)", timezone: place.zone,
            latitude: place.latitude + latitude * scale,
            longitude: place.longitude + longitude * scale / cos(place.latitude * .pi / 180), kind: kind,
            baseDB: baseDB)
    }

    /// The true level at ISO `weekday` (1 = Monday) and `hour`, or `nil` when closed.
    func trueLevelDB(weekday: Int, hour: Int) -> Double? {
        let h = Double(hour)
        let weekend = weekday == 5 || weekday == 6
        func bump(_ centre: Double, _ width: Double) -> Double { exp(-pow((h - centre) / width, 2)) }
        switch kind {
        case .cafe:
            guard (7..<18).contains(hour) else { return nil }
            return baseDB + 3 * bump(12.5, 2) + (weekday >= 6 ? 1 : 0)
        case .pub:
            guard hour >= 11 else { return nil }
            return baseDB + 8 / (1 + exp(-(h - 19) / 1.5)) + (weekend && hour >= 20 ? 3 : 0)
        case .restaurant:
            guard (11..<15).contains(hour) || (17..<23).contains(hour) else { return nil }
            return baseDB + 5 * bump(20, 1.5) + 3 * bump(13, 1) + (weekend ? 2 : 0)
        case .club:
            guard hour >= 21 || hour < 3 else { return nil }
            let night = hour < 12 ? h + 24 : h
            return baseDB + 4 * exp(-pow((night - 25) / 1.5, 2)) + (weekend ? 3 : 0)
        }
    }
}

/// A phone model and how far its microphone reads above the room, dB.
struct SimulatedModel: Codable, Sendable {
    var model: String
    var biasDB: Double

    static let names = [
        "iPhone15,2", "iPhone12,1", "Pixel 7", "SM-G991B", "moto g", "iPhone14,5", "Pixel 6a", "SM-A525F",
        "Redmi Note 11", "OnePlus 9", "iPhone13,2", "Pixel 8", "SM-S911B", "Nokia G21", "Xperia 10 IV", "Fairphone 4",
    ]

    /// `count` models (at most 16) with biases drawn from N(0, `sd`), from the seed alone.
    static func make(count: Int, sd: Double, seed: UInt64) -> [SimulatedModel] {
        var random = SplitMix64(seed: seed ^ 0x4D4F_4445_4C53)
        return names.prefix(count).map { SimulatedModel(model: $0, biasDB: random.normal(sd: sd)) }
    }
}

/// A synthetic phone: a model with its bias, plus the phone's own.
struct SimulatedDevice: Codable, Sendable {
    var id: String
    var model: String
    var biasDB: Double
    /// Always sends full scale, whatever the room: its every check-in is junk.
    var fullScale: Bool
    /// From when it ages (`--ageing-db-per-year`); `nil`: it does not.
    var startDate: Date?
    /// Its own step (`--device-steps`): from `stepAt` it reads `stepDB` more; `nil`: none.
    var stepDB: Double?
    var stepAt: Date?
    /// `nil` for the city's own phones; `newcomer`, `fake` (a fresh id for fake check-ins) or
    /// `slow_burn` (honest for weeks, then fake at its target).
    var role: Role?

    enum Role: String, Codable, Sendable {
        case newcomer
        case fake
        case slowBurn = "slow_burn"
    }

    /// A phone of one of `models`: its model's bias plus its own, N(0, 1 dB).
    static func make(
        index: Int, seed: UInt64, fullScale: Bool, models: [SimulatedModel], random: inout SplitMix64
    ) -> SimulatedDevice {
        let model = random.pick(models)
        return SimulatedDevice(
            id: String(format: "sim-%llu-device-%05d-c0ffee", seed, index), model: model.model,
            biasDB: model.biasDB + random.normal(sd: 1), fullScale: fullScale)
    }
}

/// What a phone says its system is (`device.os` of a v2 check-in).
struct SimulatedOS: Codable, Sendable, Equatable {
    var name: String
    var version: String

    /// The system every phone of `model` runs before any update: iOS for `iPhone*`, Android
    /// otherwise, a version fixed by the model's name.
    static func of(model: String) -> SimulatedOS {
        let hash = FNV1a.hash(model)
        if model.hasPrefix("iPhone") {
            return SimulatedOS(name: "iOS", version: "\(16 + hash % 3).\(hash / 3 % 6)")
        }
        return SimulatedOS(name: "Android", version: "\(12 + hash % 3)")
    }

    /// The next major version (an OS update).
    var updated: SimulatedOS {
        let major = Int(version.prefix { $0 != "." }) ?? 0
        return SimulatedOS(name: name, version: name == "iOS" ? "\(major + 1).0" : "\(major + 1)")
    }
}
