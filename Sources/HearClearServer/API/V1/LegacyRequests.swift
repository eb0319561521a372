import Foundation

/// A number the 2013 client sends either as a JSON number or as a string (`"-33.87"`).
struct FlexibleDouble: Decodable {
    var value: Double?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            value = number
        } else if let text = try? container.decode(String.self) {
            value = Double(text.trimmingCharacters(in: .whitespaces))
        } else {
            value = nil
        }
    }
}

struct LegacyUserRequest: Decodable {
    struct User: Decodable {
        var deviceID: String?
        var device: String?
    }
    var user: User?
}

struct LegacyVenueRequest: Decodable {
    struct Venue: Decodable {
        var id: String?
        var name: String?
        var latitude: FlexibleDouble?
        var longitude: FlexibleDouble?
        var distance: FlexibleDouble?
    }
    var venue: Venue?
}

struct LegacyCheckinRequest: Decodable {
    struct Checkin: Decodable {
        var ID: String?
        var name: String?
        var lat: FlexibleDouble?
        var lon: FlexibleDouble?
        var device: String?
        var deviceID: String?
        var samples: [Sample]?
    }
    struct Sample: Decodable {
        var sampleDate: String?
        var avgSample: FlexibleDouble?
        var maxSample: FlexibleDouble?
    }
    var checkin: Checkin?
}
