import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The loudness of the cell a search used: `{day, hour, level, label, range, confidence, estimated}`,
/// and an estimate's `basis`.
struct LoudnessObject: Encodable, Equatable {
    var day: String
    var hour: Int
    var level: Double
    var label: String
    var range: [Double]
    var confidence: String
    var estimated: Bool
    /// What an estimate rests on (`venue_pattern`, `category_nearby`); absent for a measured cell.
    var basis: String?

    init(_ cell: LoudnessReads.Cell) {
        day = cell.localHour.weekdayName
        hour = cell.localHour.hour
        level = cell.levelDB
        label = cell.label
        range = [cell.rangeDB.lowerBound, cell.rangeDB.upperBound]
        confidence = cell.confidence
        estimated = cell.estimated
        basis = cell.basis?.rawValue
    }
}

/// The answer of `GET /api/v2/venues`.
struct SearchBody: Encodable {
    struct Point: Encodable {
        var latitude: Double
        var longitude: Double
    }

    struct Result: Encodable {
        var venue: VenueBody
        var distance: Double
        /// The cell used at `at`; null without `at` or without a cell there.
        @KeepsNull var loudness: LoudnessObject?

        init(_ hit: VenueFinder.Hit) {
            venue = VenueBody(hit)
            distance = SearchBody.metres(hit.distanceMetres)
            loudness = hit.cell.map(LoudnessObject.init)
        }
    }

    /// The text of a search by name; absent from a search without one.
    var q: String? = nil
    /// The point searched around; null in a search by name without one.
    @KeepsNull var near: Point?
    /// Null in a search by name without `near`.
    @KeepsNull var radius: Double?
    @KeepsNull var at: Date?
    var sort: String
    var unit = "dB"
    var results: [Result]
    /// The next page, or null on the last.
    @KeepsNull var next: String?

    /// Metres to 0.1 m.
    static func metres(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

/// The answer of `GET /api/v2/venues/{venueId}/alternatives`.
struct AlternativesBody: Encodable {
    struct Alternative: Encodable {
        var venue: VenueBody
        var distance: Double
        /// How much quieter than the venue at that hour, dB.
        var quieterBy: Double
        var loudness: LoudnessObject?
    }

    var venue: String
    var at: Date
    var radius: Double
    var unit = "dB"
    /// The venue's own cell at `at`; null when it has none there (then nothing is compared).
    @KeepsNull var loudness: LoudnessObject?
    var alternatives: [Alternative]
}

/// The answer of `GET /api/v2/venues/{venueId}/similar`.
struct SimilarBody: Encodable {
    struct Entry: Encodable {
        var venue: VenueBody
        var distance: Double
        /// Root-mean-square difference over the cells both venues measured, dB.
        var difference: Double
        var sharedCells: Int
    }

    var venue: String
    var radius: Double
    var unit = "dB"
    var minimumSharedCells: Int
    var similar: [Entry]
}

extension SearchBody: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("at")
            w.date(at)
            w.key("near")
            if let near { near.write(to: &w) } else { w.null() }
            w.key("next")
            w.string(next)
            if let q {
                w.key("q")
                w.string(q)
            }
            w.key("radius")
            if let radius { w.number(radius) } else { w.null() }
            w.key("results")
            w.array(results) { w, result in result.write(to: &w) }
            w.key("sort")
            w.string(sort)
            w.key("unit")
            w.string(unit)
        }
    }
}

extension SearchBody.Point: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("latitude")
            w.number(latitude)
            w.key("longitude")
            w.number(longitude)
        }
    }
}

extension SearchBody.Result: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            w.key("distance")
            w.number(distance)
            w.key("loudness")
            if let loudness { loudness.write(to: &w) } else { w.null() }
            w.key("venue")
            venue.write(to: &w)
        }
    }
}

extension LoudnessObject: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { w in
            if let basis {
                w.key("basis")
                w.string(basis)
            }
            w.key("confidence")
            w.string(confidence)
            w.key("day")
            w.string(day)
            w.key("estimated")
            w.bool(estimated)
            w.key("hour")
            w.int(hour)
            w.key("label")
            w.string(label)
            w.key("level")
            w.number(level)
            w.key("range")
            w.array(range) { w, bound in w.number(bound) }
        }
    }
}
