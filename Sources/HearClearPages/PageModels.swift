import Foundation
import HearClearEngine
import LoudnessCore

// The contexts of the pages' templates (`Pages/*.mustache`), as the admin has its own: one type a
// template, each field a name the template reads. Mustache reads a struct's stored properties by
// name, and a `nil` one as a name the struct lacks (the lookup goes on to the enclosing context,
// as for a missing key), so a field is optional exactly where the page may lack it.

/// `home.mustache`: the form and the results, written (and escaped) by ``HomeContent``. Rendered
/// once, at start, with a marker for `page` (``PagesRenderer/Frame``): each page is written into
/// the bytes around it.
struct HomePage {
    /// The map's tile server, when the service has one (the page then loads Leaflet).
    struct Map {
        let tiles: String
        let attribution: String
    }

    let title = "Find a quiet place"
    let page: String
    let map: Map?
}

/// `error.mustache`: a refusal in words.
struct ErrorPage {
    let title: String
    let message: String
}

/// `report.mustache`: the thanks for a report, with the way back to its venue.
struct ReportThanksPage {
    let title = "Thank you"
    let href: String
}

/// A text in a list (a paragraph, an error, a day's name as `day`).
struct PageText {
    let text: String
}

/// A level in words and in dB: a venue's overall level.
struct PageLevel {
    let words: String
    let level: String

    init(_ level: (levelDB: Double, label: String)) {
        words = PlainWords.level(label: level.label)
        self.level = PlainWords.decibels(level.levelDB)
    }
}

/// One venue-local hour of a venue: its level, and whether people can talk there.
struct PageCell {
    let words: String
    let level: String
    let label: String
    let when: String
    let conversation: String
    let estimated: Bool
    let checkins: Int
    let confidence: String

    init(_ cell: LoudnessReads.Cell) {
        words = PlainWords.level(label: cell.label)
        level = PlainWords.decibels(cell.levelDB)
        label = cell.label
        when = "\(PlainWords.dayNames[cell.localHour.weekday - 1]) \(PlainWords.hour(cell.localHour.hour))"
        conversation = PlainWords.conversation(PlainWords.conversationBand(cell))
        estimated = cell.estimated
        checkins = cell.checkins
        confidence = cell.confidence
    }
}

/// A venue found: on a venue's page, one of its alternatives nearby.
struct PageResult {
    let name: String
    let latitude: String
    let longitude: String
    var href: String
    let address: String
    let hasAddress: Bool
    let distance: String?
    /// The hour asked for, else (without one) the venue's overall level.
    let cell: PageCell?
    let overall: PageLevel?

    init(_ hit: VenueFinder.Hit, cell: LoudnessReads.Cell?, showDistance: Bool) {
        name = hit.venue.name
        latitude = String(format: "%.5f", hit.venue.latitude)
        longitude = String(format: "%.5f", hit.venue.longitude)
        href = "/venues/\(hit.venue.externalID)"
        address = hit.venue.address ?? ""
        hasAddress = hit.venue.address != nil
        distance = showDistance ? PlainWords.distance(hit.distanceMetres) : nil
        self.cell = cell.map(PageCell.init)
        overall = cell == nil ? hit.overall.map(PageLevel.init) : nil
    }
}

/// An `<option>` of a `<select>`.
struct PageOption {
    let value: Int
    let name: String
    let selected: Bool
}

/// `measure.mustache`: the meter in the browser, at a venue when one is chosen.
struct MeasurePage {
    struct Venue {
        let id: String
        let name: String
        let address: String
        let hasAddress: Bool
    }

    var title = "Measure here"
    /// The length chosen first, seconds.
    let seconds: Int
    let lengths: [PageOption]
    /// `?seconds=N` as asked (tests and short visits).
    let testSeconds: Int?
    var venue: Venue?
}

/// `venue.mustache`: a venue's week, its level now (or at the hour asked for) beside its
/// alternatives nearby, and the "this was wrong" form.
struct VenuePage {
    /// An hour of the week's table: the hour and each day's entry.
    struct Row {
        struct Day {
            let text: String
            let estimated: Bool
            let empty: Bool
            let colour: String
        }

        let hour: String
        let days: [Day]
    }

    /// A choice of the report form.
    struct Feeling {
        let value: String
        let text: String
        let checked: Bool
        let id: String
    }

    let title: String
    let ogDescription: String
    let href: String
    let svgHref: String
    let reportHref: String
    let measureHref: String
    let name: String
    let address: String
    let hasAddress: Bool
    let category: String
    let hasCategory: Bool
    let checkins: Int
    let measuredCells: Int
    let estimatedCells: Int
    let hasEstimates: Bool
    let hasCells: Bool
    let svg: String
    let days: [Day]
    let rows: [Row]
    let quietest: [PageText]
    let hasQuietest: Bool
    let character: [PageText]
    let hasCharacter: Bool
    let feelings: [Feeling]
    let comment: String
    let reportErrors: [PageText]
    let hasReportErrors: Bool
    let overall: PageLevel?
    /// The venue's own cell now, or (with an hour asked for) `then`.
    let now: PageCell?
    let then: PageCell?
    let alternatives: [PageResult]
    let hasAlternatives: Bool
    let hasOwnCell: Bool
    let alternativesWhen: String
    let alternativeDays: [PageOption]
    let alternativeHours: [PageOption]
    /// Why the hour asked for was refused.
    var alternativesError: String?

    /// A weekday's name, a column of the table.
    struct Day {
        let day: String
    }
}
