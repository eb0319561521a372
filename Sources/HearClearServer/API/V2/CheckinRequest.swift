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
        var os: OperatingSystem?
    }

    /// `device.os`: the phone's operating system, name and version.
    struct OperatingSystem: Decodable, Equatable {
        var name: String?
        var version: String?
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

    /// What the phone's own classifier heard (docs/ARCHITECTURE.md, "The phone's own classes").
    struct Classes: Decodable, Equatable {
        struct Classifier: Decodable, Equatable {
            var name: String?
            var version: String?
        }

        struct Label: Decodable, Equatable {
            var label: String?
            var confidence: Double?
        }

        struct Window: Decodable, Equatable {
            /// Whole seconds after the first sample's `t`.
            var offset: Double?
            var seconds: Double?
            var top: [Label]?
        }

        var classifier: Classifier?
        var vocabulary: String?
        var windows: [Window]?
    }

    /// How the audio was captured, as a browser reports it (`MediaStreamTrack.getSettings()`):
    /// whether its echo cancellation, noise suppression or automatic gain control stayed on.
    struct Capture: Decodable, Equatable {
        var echoCancellation: Bool?
        var noiseSuppression: Bool?
        var autoGainControl: Bool?
    }

    var id: String?
    var venue: Venue?
    var device: Device?
    var location: Location?
    var unit: String?
    var samples: [Sample]?
    var classes: Classes?
    var capture: Capture?
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
