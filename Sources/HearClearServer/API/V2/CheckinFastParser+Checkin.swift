extension CheckinFastParser.Reader {
    typealias GiveUp = CheckinFastParser.GiveUp

    mutating func checkin() throws(GiveUp) -> CheckinRequest {
        var request = CheckinRequest()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "id") {
                request.id = try reader.string()
            } else if reader.key(key, is: "unit") {
                request.unit = try reader.string()
            } else if reader.key(key, is: "venue") {
                request.venue = try reader.null() ? nil : try reader.venue()
            } else if reader.key(key, is: "device") {
                request.device = try reader.null() ? nil : try reader.device()
            } else if reader.key(key, is: "location") {
                request.location = try reader.null() ? nil : try reader.location()
            } else if reader.key(key, is: "samples") {
                request.samples = try reader.null() ? nil : try reader.samples()
            } else if reader.key(key, is: "classes") {
                request.classes = try reader.null() ? nil : try reader.classes()
            } else if reader.key(key, is: "capture") {
                request.capture = try reader.null() ? nil : try reader.capture()
            } else {
                try reader.skipValue()
            }
        }
        return request
    }

    mutating func venue() throws(GiveUp) -> CheckinRequest.Venue {
        var venue = CheckinRequest.Venue()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "id") {
                venue.id = try reader.string()
            } else if reader.key(key, is: "name") {
                venue.name = try reader.string()
            } else if reader.key(key, is: "latitude") {
                venue.latitude = try reader.number()
            } else if reader.key(key, is: "longitude") {
                venue.longitude = try reader.number()
            } else if reader.key(key, is: "timezone") {
                venue.timezone = try reader.string()
            } else if reader.key(key, is: "address") {
                venue.address = try reader.string()
            } else if reader.key(key, is: "category") {
                venue.category = try reader.string()
            } else {
                try reader.skipValue()
            }
        }
        return venue
    }

    mutating func device() throws(GiveUp) -> CheckinRequest.Device {
        var device = CheckinRequest.Device()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "id") {
                device.id = try reader.string()
            } else if reader.key(key, is: "model") {
                device.model = try reader.string()
            } else if reader.key(key, is: "os") {
                device.os = try reader.null() ? nil : try reader.operatingSystem()
            } else {
                try reader.skipValue()
            }
        }
        return device
    }

    mutating func operatingSystem() throws(GiveUp) -> CheckinRequest.OperatingSystem {
        var os = CheckinRequest.OperatingSystem()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "name") {
                os.name = try reader.string()
            } else if reader.key(key, is: "version") {
                os.version = try reader.string()
            } else {
                try reader.skipValue()
            }
        }
        return os
    }

    mutating func capture() throws(GiveUp) -> CheckinRequest.Capture {
        var capture = CheckinRequest.Capture()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "echoCancellation") {
                capture.echoCancellation = try reader.boolean()
            } else if reader.key(key, is: "noiseSuppression") {
                capture.noiseSuppression = try reader.boolean()
            } else if reader.key(key, is: "autoGainControl") {
                capture.autoGainControl = try reader.boolean()
            } else {
                try reader.skipValue()
            }
        }
        return capture
    }

    /// `true`, `false` or `null` (nil); anything else gives up (the decoder then says what is wrong).
    mutating func boolean() throws(GiveUp) -> Bool? {
        switch try peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        case UInt8(ascii: "n"):
            _ = try null()
            return nil
        default: throw GiveUp()
        }
    }

    mutating func location() throws(GiveUp) -> CheckinRequest.Location {
        var location = CheckinRequest.Location()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "latitude") {
                location.latitude = try reader.number()
            } else if reader.key(key, is: "longitude") {
                location.longitude = try reader.number()
            } else if reader.key(key, is: "accuracy") {
                location.accuracy = try reader.number()
            } else {
                try reader.skipValue()
            }
        }
        return location
    }

    mutating func samples() throws(GiveUp) -> [CheckinRequest.Sample] {
        var samples: [CheckinRequest.Sample] = []
        samples.reserveCapacity(512)
        try array { reader throws(GiveUp) in
            var sample = CheckinRequest.Sample()
            try reader.object { reader, key throws(GiveUp) in
                if reader.key(key, is: "t") {
                    sample.t = try reader.string()
                } else if reader.key(key, is: "average") {
                    sample.average = try reader.number()
                } else if reader.key(key, is: "peak") {
                    sample.peak = try reader.number()
                } else if reader.key(key, is: "lceq") {
                    sample.lceq = try reader.number()
                } else if reader.key(key, is: "bands") {
                    sample.bands = try reader.null() ? nil : try reader.bands()
                } else {
                    try reader.skipValue()
                }
            }
            samples.append(sample)
        }
        return samples
    }

    /// The phone's own classes: `{"classifier": {"name", "version"}, "vocabulary", "windows":
    /// [{"offset", "seconds", "top": [{"label", "confidence"}]}]}`.
    mutating func classes() throws(GiveUp) -> CheckinRequest.Classes {
        var classes = CheckinRequest.Classes()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "classifier") {
                guard !(try reader.null()) else { return }
                var classifier = CheckinRequest.Classes.Classifier()
                try reader.object { reader, key throws(GiveUp) in
                    if reader.key(key, is: "name") {
                        classifier.name = try reader.string()
                    } else if reader.key(key, is: "version") {
                        classifier.version = try reader.string()
                    } else {
                        try reader.skipValue()
                    }
                }
                classes.classifier = classifier
            } else if reader.key(key, is: "vocabulary") {
                classes.vocabulary = try reader.string()
            } else if reader.key(key, is: "windows") {
                guard !(try reader.null()) else { return }
                var windows: [CheckinRequest.Classes.Window] = []
                try reader.array { reader throws(GiveUp) in windows.append(try reader.classWindow()) }
                classes.windows = windows
            } else {
                try reader.skipValue()
            }
        }
        return classes
    }

    mutating func classWindow() throws(GiveUp) -> CheckinRequest.Classes.Window {
        var window = CheckinRequest.Classes.Window()
        try object { reader, key throws(GiveUp) in
            if reader.key(key, is: "offset") {
                window.offset = try reader.number()
            } else if reader.key(key, is: "seconds") {
                window.seconds = try reader.number()
            } else if reader.key(key, is: "top") {
                guard !(try reader.null()) else { return }
                var top: [CheckinRequest.Classes.Label] = []
                try reader.array { reader throws(GiveUp) in
                    var entry = CheckinRequest.Classes.Label()
                    try reader.object { reader, key throws(GiveUp) in
                        if reader.key(key, is: "label") {
                            entry.label = try reader.string()
                        } else if reader.key(key, is: "confidence") {
                            entry.confidence = try reader.number()
                        } else {
                            try reader.skipValue()
                        }
                    }
                    top.append(entry)
                }
                window.top = top
            } else {
                try reader.skipValue()
            }
        }
        return window
    }

    /// `{"100": -50.2, …}`: keys as written (the validator judges them), numbers only; gives up on
    /// a null, a repeated key or anything else, for JSONDecoder to word.
    mutating func bands() throws(GiveUp) -> [String: Double] {
        var bands: [String: Double] = [:]
        bands.reserveCapacity(24)
        try object { reader, key throws(GiveUp) in
            guard let name = String(validating: UnsafeRawBufferPointer(rebasing: reader.bytes[key]), as: UTF8.self),
                let value = try reader.number(), bands.updateValue(value, forKey: name) == nil
            else { throw GiveUp() }
        }
        return bands
    }
}
