import Foundation
import HearClearModel
import Hummingbird
import LoudnessCore

/// The "Find a quiet place" form as sent (a GET: its query), checked: a name (`q`) or
/// coordinates (`lat`, `lon`); when (`when=now`, or `day` 1–7 and `hour` 0–23, venue-local);
/// how quiet (`band`: at most this band) and `talk=easy`.
struct SearchForm {
    var q: String?
    var near: (latitude: Double, longitude: Double)?
    var day: Int?
    var hour: Int?
    var bandIndex: Int?
    var easyToTalk = false
    var errors: [String] = []
    /// The query decoded as a browser encodes a GET form (`+` is a space), the first of each name.
    private let raw: FormBody

    init(_ request: Request, bands: Bands) {
        raw = FormBody(encoded: request.uri.query ?? "")
        if let text = raw["q"]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            if text.unicodeScalars.count > 100 || text.unicodeScalars.contains("\u{0}") {
                errors.append("The name must be at most 100 characters.")
            } else if NameWords.searchWords(of: text).count > NameWords.maximumSearchWords {
                errors.append("The name must be at most \(NameWords.maximumSearchWords) words.")
            } else {
                q = text
            }
        }
        let lat = raw["lat"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let lon = raw["lon"]?.trimmingCharacters(in: .whitespaces) ?? ""
        if !lat.isEmpty || !lon.isEmpty {
            if let latitude = Double(lat), let longitude = Double(lon), (-90...90).contains(latitude),
                (-180...180).contains(longitude)
            {
                near = (latitude, longitude)
            } else {
                errors.append(
                    "Coordinates must be a latitude from −90 to 90 and a longitude from −180 to 180, e.g. 51.5072 and −0.1276."
                )
            }
        }
        if raw["when"] == "at" {
            if let day = raw["day"].flatMap(Int.init), (1...7).contains(day), let hour = raw["hour"].flatMap(Int.init),
                (0...23).contains(hour)
            {
                self.day = day
                self.hour = hour
            } else {
                errors.append("Choose a day and an hour.")
            }
        }
        if let band = raw["band"], !band.isEmpty {
            if let index = bands.bands.firstIndex(where: { $0.label == band }) {
                bandIndex = index
            } else {
                errors.append("Choose how quiet from the list.")
            }
        }
        easyToTalk = raw["talk"] == "easy"
    }

    /// "now", or "Friday 21:00 (each venue's own time)".
    var whenText: String {
        guard let day, let hour else { return "now" }
        return "\(PlainWords.dayNames[day - 1]) \(PlainWords.hour(hour)), each venue's own time"
    }

    /// The text fields as sent, shown again in the form.
    var rawValues: (q: String, lat: String, lon: String) { (raw["q"] ?? "", raw["lat"] ?? "", raw["lon"] ?? "") }

}
