import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

extension VenuePage {
    /// The page of `sheet`'s venue with its alternatives `found` (at the venue-local hour
    /// `chosen`, else now); with `report`, the form as sent and its errors.
    init(
        sheet: LoudnessReads.Sheet, bands: Bands, found: VenueFinder.Alternatives?, chosen: LocalHour?,
        report: (form: PageReportForm, errors: [String: String])?
    ) {
        let venue = sheet.grid.venue
        let cells = sheet.grid.cells
        let chart = WeekChart(cells: cells, bands: bands)
        let overall = LoudnessReads.overall(cells, bands: bands)
        let measured = cells.filter { !$0.estimated }.count
        title = venue.name
        ogDescription =
            overall.map {
                "\(venue.name): usually \($0.label) (\(PlainWords.decibels($0.levelDB))), from \(sheet.checkins) check-ins."
            } ?? "\(venue.name): not measured yet."
        href = "/venues/\(venue.externalID)"
        svgHref = "/venues/\(venue.externalID)/week.svg"
        reportHref = "/venues/\(venue.externalID)/report"
        measureHref = "/measure?venue=\(venue.externalID)"
        name = venue.name
        address = venue.address ?? ""
        hasAddress = venue.address != nil
        category = venue.category ?? ""
        hasCategory = venue.category != nil
        checkins = sheet.checkins
        measuredCells = measured
        estimatedCells = cells.count - measured
        hasEstimates = cells.count > measured
        hasCells = !cells.isEmpty
        svg = chart.svg(title: "\(venue.name): level by weekday and hour, venue-local time")
        days = PlainWords.dayNames.map(Day.init)
        rows = chart.rows.map { row in
            Row(
                hour: row.hour,
                days: row.days.map {
                    Row.Day(text: $0.text, estimated: $0.estimated, empty: $0.empty, colour: $0.colourClass)
                })
        }
        quietest = chart.quietest.map(PageText.init)
        hasQuietest = !chart.quietest.isEmpty
        character = Self.character(cells)
        hasCharacter = !character.isEmpty
        feelings = Self.feelings(checked: report?.form.felt)
        comment = report?.form.comment ?? ""
        reportErrors = (report?.errors ?? [:]).sorted { $0.key < $1.key }.map { PageText(text: $0.value) }
        hasReportErrors = !(report?.errors.isEmpty ?? true)
        self.overall = overall.map(PageLevel.init)
        let own = found?.cell.map(PageCell.init)
        (now, then) = chosen == nil ? (own, nil) : (nil, own)
        alternatives = Self.alternatives(found?.hits ?? [], at: chosen)
        hasAlternatives = !(found?.hits.isEmpty ?? true)
        hasOwnCell = found?.cell != nil
        alternativesWhen =
            chosen.map { "on \(PlainWords.dayNames[$0.weekday - 1]) at \(PlainWords.hour($0.hour))" } ?? "now"
        alternativeDays = PlainWords.dayOptions(selected: chosen?.weekday)
        alternativeHours = PlainWords.hourOptions(selected: chosen?.hour)
        alternativesError = nil
    }

    /// The alternatives nearby, each linking to its own page at the hour `chosen` when one is.
    private static func alternatives(_ hits: [VenueFinder.Hit], at chosen: LocalHour?) -> [PageResult] {
        hits.map { hit in
            var result = PageResult(hit, cell: hit.cell, showDistance: true)
            if let chosen {
                result.href = "/venues/\(hit.venue.externalID)?day=\(chosen.weekday)&hour=\(chosen.hour)"
            }
            return result
        }
    }

    /// The sound character where known: the classes heard most, over the hours that have one.
    private static func character(_ cells: [LoudnessReads.Cell]) -> [PageText] {
        var hours: [SoundClass: Int] = [:]
        for cell in cells {
            guard let character = cell.character, let top = character.shares.max(by: { $0.value < $1.value }) else {
                continue
            }
            hours[top.key, default: 0] += 1
        }
        return hours.sorted { ($1.value, $0.key.rawValue) < ($0.value, $1.key.rawValue) }.map {
            PageText(text: "\(PlainWords.soundClass($0.key)): mostly, in \($0.value) hour\($0.value == 1 ? "" : "s")")
        }
    }

    /// The report form's choices, `checked` the one sent.
    private static func feelings(checked: String?) -> [Feeling] {
        [("louder", "Louder than shown"), ("quieter", "Quieter than shown"), ("about right", "About right")].map {
            value, text in
            Feeling(
                value: value, text: text, checked: checked == value,
                id: "felt-" + value.replacingOccurrences(of: " ", with: "-"))
        }
    }
}
