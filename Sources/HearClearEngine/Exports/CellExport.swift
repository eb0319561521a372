import Foundation
import HearClearModel
import HearClearStore
import LoudnessCore

/// The open-data export of every venue with data and its cells (docs/ARCHITECTURE.md, "Exports"),
/// as `GET /api/v2/export/cells.*` serves it and `hearclear export` writes it: the same bytes.
/// Venues are read in keyset pages of ``pageSize``, encoded and handed on in chunks of about
/// ``chunkBytes``, so memory stays flat however many venues there are. Nothing personal is read:
/// no device, check-in, sample or time of a check-in.
public struct CellExporter: Sendable {
    /// Venues read per query.
    public static let pageSize = 500
    /// Bytes gathered before they are handed on.
    public static let chunkBytes = 64 << 10

    let exports: ExportRepository
    let loudness: LoudnessReads
    public let license: DataLicense

    /// An exporter reading `engine`'s database, under its configured licence.
    public init(engine: Engine) {
        exports = ExportRepository(client: engine.client, logger: engine.logger)
        loudness = engine.loudness
        license = engine.configuration.dataLicense
    }

    /// What the export's validators are made of (last change, counts of cells and venues).
    public func stamp() async throws -> ExportStamp { try await exports.stamp() }

    /// Writes the whole export in `format`, labelled with `bands`, to `sink` in chunks (never an
    /// empty one); `progress` hears how many venues are written after each page.
    public func write(
        _ format: CellExportFormat, bands: Bands,
        progress: @Sendable (Int) -> Void = { _ in },
        to sink: (inout [UInt8]) async throws -> Void
    ) async throws {
        let encoder = CellExportEncoder(format: format, bands: bands, loudness: loudness, license: license)
        var chunk: [UInt8] = []
        chunk.reserveCapacity(Self.chunkBytes + 4096)
        encoder.head(into: &chunk)
        var after: Int64 = 0
        var written = 0
        while true {
            let page = try await exports.page(after: after, limit: Self.pageSize)
            guard let last = page.last else { break }
            for venue in page {
                encoder.venue(venue, first: written == 0, into: &chunk)
                written += 1
                if chunk.count >= Self.chunkBytes {
                    try await sink(&chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            after = last.id
            progress(written)
        }
        encoder.tail(into: &chunk)
        if !chunk.isEmpty { try await sink(&chunk) }
    }
}

/// The export's formats.
public enum CellExportFormat: String, Sendable, CaseIterable {
    /// A FeatureCollection, one Point feature per venue with its cells.
    case geojson
    /// RFC 4180 with a header row, one row per cell.
    case csv

    public var contentType: String {
        switch self {
        case .geojson: "application/geo+json; charset=utf-8"
        case .csv: "text/csv; charset=utf-8; header=present"
        }
    }
}

/// The licence the exported data is published under, named in the GeoJSON and in a `Link`
/// header (`--data-license`, `--data-license-url`).
public struct DataLicense: Sendable, Equatable, Encodable {
    /// A short name, e.g. an SPDX id.
    public var name: String
    /// Where its text is: an absolute http(s) URL.
    public var url: String

    /// The Open Database License 1.0, the default.
    public static let odbl = DataLicense(name: "ODbL-1.0", url: "https://opendatacommons.org/licenses/odbl/1-0/")

    /// A licence as given, unchecked (``configured(name:url:)`` checks settings).
    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }

    /// A licence from settings: the default's URL goes with its name only; any other name needs a
    /// URL. Names are 1–100 printable characters; URLs absolute http(s) without spaces, quotes or
    /// angle brackets (they are written into a `Link` header).
    public static func configured(name: String?, url: String?) throws -> DataLicense {
        let name = name ?? odbl.name
        guard (1...100).contains(name.count), name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { throw ConfigurationError.invalid("data licence name must be 1–100 printable characters") }
        guard let url = url ?? (name == odbl.name ? odbl.url : nil) else {
            throw ConfigurationError.invalid("data licence '\(name)' needs its URL (--data-license-url)")
        }
        guard let parsed = URLComponents(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()),
            parsed.host?.isEmpty == false, url.count <= 2_000,
            !url.unicodeScalars.contains(where: { $0.value <= 0x20 || "<>\"".unicodeScalars.contains($0) })
        else { throw ConfigurationError.invalid("data licence URL must be an absolute http(s) URL, not '\(url)'") }
        return DataLicense(name: name, url: url)
    }
}

/// The export's text: GeoJSON (a FeatureCollection, one Point feature per venue) or CSV
/// (RFC 4180, one row per cell).
struct CellExportEncoder: Sendable {
    let format: CellExportFormat
    let bands: Bands
    let loudness: LoudnessReads
    let license: DataLicense
    /// One encoder for the whole export (`JSONEncoder.api` makes a new one each time it is read).
    let json = JSONEncoder.api

    static let csvHeader = [
        "venue_id", "name", "category", "timezone", "latitude", "longitude", "day", "hour", "level", "range_low",
        "range_high", "label", "checkins", "devices", "confidence", "estimated", "basis",
    ]

    private struct FeatureCollectionHead: Encodable {
        var type = "FeatureCollection"
        var license: DataLicense
        var unit = "dB"
        var bands: [Band]
    }

    private struct Feature: Encodable {
        struct Geometry: Encodable {
            var type = "Point"
            var coordinates: [Double]
        }

        struct Properties: Encodable {
            var id: String
            var name: String
            var category: String?
            var timezone: String?
            var level: Double?
            var label: String?
            var cells: [Cell]

            /// Every key, `null` included (the synthesised encoding leaves out `nil`s).
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(name, forKey: .name)
                try container.encode(category, forKey: .category)
                try container.encode(timezone, forKey: .timezone)
                try container.encode(level, forKey: .level)
                try container.encode(label, forKey: .label)
                try container.encode(cells, forKey: .cells)
            }

            enum CodingKeys: String, CodingKey {
                case id, name, category, timezone, level, label, cells
            }
        }

        struct Cell: Encodable {
            var day: String
            var hour: Int
            var level: Double
            var label: String
            var range: [Double]
            var checkins: Int
            var devices: Int
            var confidence: String
            var estimated: Bool
            var basis: String?
        }

        var type = "Feature"
        var geometry: Geometry
        var properties: Properties
    }

    func head(into buffer: inout [UInt8]) {
        switch format {
        case .geojson:
            // The head object without its closing brace, then the features array.
            var data =
                (try? json.encode(FeatureCollectionHead(license: license, bands: bands.bands)))
                ?? Data("{}".utf8)
            data.removeLast()
            buffer.append(contentsOf: data)
            buffer.append(contentsOf: ",\"features\":[".utf8)
        case .csv:
            Self.csvRow(Self.csvHeader, into: &buffer)
        }
    }

    func tail(into buffer: inout [UInt8]) {
        if format == .geojson { buffer.append(contentsOf: "]}\n".utf8) }
    }

    /// Appends the venue: a feature (`first` of the collection, or after a comma), or its cells' rows.
    func venue(_ venue: ExportRepository.ExportedVenue, first: Bool, into buffer: inout [UInt8]) {
        let cells = venue.cells.map { loudness.cell($0, bands: bands) }
        switch format {
        case .geojson:
            let overall = LoudnessReads.overall(cells, bands: bands)
            let feature = Feature(
                geometry: .init(coordinates: [venue.longitude, venue.latitude]),
                properties: .init(
                    id: venue.externalID, name: venue.name, category: venue.category, timezone: venue.timezone,
                    level: overall?.levelDB, label: overall?.label,
                    cells: cells.map { cell in
                        Feature.Cell(
                            day: cell.localHour.weekdayName, hour: cell.localHour.hour, level: cell.levelDB,
                            label: cell.label, range: [cell.rangeDB.lowerBound, cell.rangeDB.upperBound],
                            checkins: cell.checkins, devices: cell.devices, confidence: cell.confidence,
                            estimated: cell.estimated, basis: cell.basis?.rawValue)
                    }))
            // Every value is a string, number or bool: encoding cannot fail.
            guard let data = try? json.encode(feature) else { return }
            if !first { buffer.append(UInt8(ascii: ",")) }
            buffer.append(UInt8(ascii: "\n"))
            buffer.append(contentsOf: data)
        case .csv:
            for cell in cells {
                Self.csvRow(
                    [
                        venue.externalID, venue.name, venue.category ?? "", venue.timezone ?? "",
                        "\(venue.latitude)", "\(venue.longitude)", cell.localHour.weekdayName, "\(cell.localHour.hour)",
                        "\(cell.levelDB)", "\(cell.rangeDB.lowerBound)", "\(cell.rangeDB.upperBound)", cell.label,
                        "\(cell.checkins)", "\(cell.devices)", cell.confidence, cell.estimated ? "true" : "false",
                        cell.basis?.rawValue ?? "",
                    ], into: &buffer)
            }
        }
    }

    /// One RFC 4180 record: fields with a comma, quote, CR or LF quoted (quotes doubled), CRLF after.
    static func csvRow(_ fields: [String], into buffer: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            if field.utf8.contains(where: {
                $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10
            }) {
                buffer.append(UInt8(ascii: "\""))
                for byte in field.utf8 {
                    if byte == UInt8(ascii: "\"") { buffer.append(byte) }
                    buffer.append(byte)
                }
                buffer.append(UInt8(ascii: "\""))
            } else {
                buffer.append(contentsOf: field.utf8)
            }
        }
        buffer.append(contentsOf: "\r\n".utf8)
    }
}
