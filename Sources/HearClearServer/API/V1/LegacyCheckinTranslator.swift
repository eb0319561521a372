import Crypto
import Foundation
import HearClearEngine
import HearClearModel

/// Turns a 2013 check-in into a v2 one, so both go through the same validation and ingest.
enum LegacyCheckinTranslator {
    struct Translation {
        var request: CheckinRequest
        var zoneGuessed: Bool
    }

    /// The old client has no check-in id: derive a stable one from the device and the first
    /// sample's instant (SHA-256, shaped as a version-8 UUID), so a resend is stored once.
    static func derivedID(deviceID: String, firstSampleSeconds: Double) -> UUID {
        let digest = SHA256.hash(data: Data("hearclear-v1|\(deviceID)|\(Int64(firstSampleSeconds))".utf8))
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// Throws a message for the legacy 400 body when a sample date cannot be read.
    static func translate(_ checkin: LegacyCheckinRequest.Checkin, venueZone: TimeZone?) throws(LegacyError)
        -> Translation
    {
        var samples: [CheckinRequest.Sample] = []
        var guessed = false
        var firstSeconds: Double?
        for (index, sample) in (checkin.samples ?? []).enumerated() {
            guard let text = sample.sampleDate else { throw LegacyError("samples[\(index)].sampleDate is missing") }
            guard let parsed = LegacyDate.parse(text, fallbackZone: venueZone) else {
                throw LegacyError("samples[\(index)].sampleDate '\(text)' is not dd-MM-yyyy HH:mm:ss zone")
            }
            guessed = guessed || parsed.zoneGuessed
            if firstSeconds == nil { firstSeconds = parsed.secondsSince1970 }
            samples.append(
                CheckinRequest.Sample(
                    t: RFC3339.format(secondsSince1970: parsed.secondsSince1970, offsetMinutes: parsed.offsetMinutes),
                    average: sample.avgSample?.value, peak: sample.maxSample?.value
                )
            )
        }
        var request = CheckinRequest()
        if let deviceID = checkin.deviceID, let firstSeconds {
            request.id = derivedID(deviceID: deviceID, firstSampleSeconds: firstSeconds).uuidString
        } else {
            request.id = UUID().uuidString  // rejected below for the missing device or samples
        }
        request.venue = CheckinRequest.Venue(
            id: checkin.ID, name: checkin.name, latitude: checkin.lat?.value, longitude: checkin.lon?.value
        )
        request.device = CheckinRequest.Device(id: checkin.deviceID, model: checkin.device)
        request.unit = "amplitude"
        request.samples = checkin.samples == nil ? nil : samples
        return Translation(request: request, zoneGuessed: guessed)
    }

    /// v2 pointers in v1 words, for the legacy error message.
    static func legacyField(_ pointer: String) -> String {
        var parts = pointer.split(separator: "/").map(String.init)
        let names = [
            "t": "sampleDate", "average": "avgSample", "peak": "maxSample", "latitude": "lat", "longitude": "lon",
        ]
        if parts.first == "venue" {
            parts.removeFirst()
            if parts.first == "id" { parts[0] = "ID" }
        } else if parts.first == "device" {
            parts = parts.last == "id" ? ["deviceID"] : ["device"]
        }
        if parts.count == 3, parts[0] == "samples" { return "samples[\(parts[1])].\(names[parts[2]] ?? parts[2])" }
        return parts.map { names[$0] ?? $0 }.joined(separator: ".")
    }
}

struct LegacyError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
