/// The v2 check-in body as sent. Every field is optional here so that a missing one is
/// reported as a validation error with its pointer rather than as a decoding failure.
struct CheckinRequest: Decodable, Equatable {
    struct Venue: Decodable, Equatable {
        var id: String?
        var name: String?
        var latitude: Double?
        var longitude: Double?
        var timezone: String?
        var address: String?
        var category: String?
    }

    struct Device: Decodable, Equatable {
        var id: String?
        var model: String?
    }

    struct Location: Decodable, Equatable {
        var latitude: Double?
        var longitude: Double?
        var accuracy: Double?
    }

    struct Sample: Decodable, Equatable {
        var t: String?
        var average: Double?
        var peak: Double?
        /// The second's LCeq, dBFS (then `average` is taken as its LAeq).
        var lceq: Double?
        /// Z-weighted third-octave band levels, dBFS, keyed by nominal centre in Hz (`"100"`).
        var bands: [String: Double]?
    }

    var id: String?
    var venue: Venue?
    var device: Device?
    var location: Location?
    var unit: String?
    var samples: [Sample]?
}

/// The v2 venue body of `PUT /api/v2/venues/{venueId}`.
struct VenueRequest: Decodable {
    var name: String?
    var latitude: Double?
    var longitude: Double?
    var timezone: String?
    var address: String?
    var category: String?
}
