import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import HearClearEngine
import HearClearStore
import Hummingbird
import LoudnessCore

/// `GET /api/v2/export/cells.geojson` and `GET /api/v2/export/cells.csv`: every venue with data and
/// its cells as the API reports them (calibrated dB rounded to 0.1 dB, labelled with the bands in
/// force), streamed in keyset pages of venues so memory stays flat however many there are, gzip'd
/// as it streams when asked. A weak `ETag` and `Last-Modified` come from the last cell change and
/// the counts of cells and venues, so a mirror revalidates with a 304. Nothing personal: no device,
/// check-in, sample or time of a check-in is read (docs/ARCHITECTURE.md, "Exports").
struct ExportController {
    /// The licence of the exported data, named in the GeoJSON and in a `Link` header. A constant for
    /// now (not a setting): ODbL 1.0.
    static let license = License(name: "ODbL-1.0", url: "https://opendatacommons.org/licenses/odbl/1-0/")
    /// `Link` (RFC 8288), which HTTPTypes does not name.
    static let linkHeader = HTTPField.Name("Link")!
    /// Venues read per query.
    static let pageSize = 500
    /// Bytes gathered before they are written (or gzip'd) to the client.
    static let chunkBytes = 64 << 10

    struct License: Sendable, Encodable {
        var name: String
        var url: String
    }

    enum Format: Sendable {
        case geoJSON, csv

        var contentType: String {
            switch self {
            case .geoJSON: "application/geo+json; charset=utf-8"
            case .csv: "text/csv; charset=utf-8; header=present"
            }
        }
    }

    let exports: ExportRepository
    let loudness: LoudnessReads
    let reads: CachedReads

    init(engine: Engine, reads: CachedReads) {
        exports = ExportRepository(client: engine.client, logger: engine.logger)
        loudness = engine.loudness
        self.reads = reads
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("export/cells.geojson") { request, _ in try await export(.geoJSON, request) }
        group.get("export/cells.csv") { request, _ in try await export(.csv, request) }
    }

    func export(_ format: Format, _ request: Request) async throws -> Response {
        let bands = try await reads.currentBands()
        let stamp = try await exports.stamp()
        let tag = Self.eTag(stamp, bands: bands, referenceOffsetDB: loudness.referenceOffsetDB)
        var headers: HTTPFields = [
            .eTag: tag, .cacheControl: "public, no-cache",
            ExportController.linkHeader: "<\(Self.license.url)>; rel=\"license\"",
        ]
        if let last = stamp.lastChange { headers[.lastModified] = HTTPDate.format(last) }
        if Self.notModified(request, tag: tag, lastChange: stamp.lastChange) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = format.contentType
        guard request.method != .head else { return Response(status: .ok, headers: headers) }
        let gzip = ResponseCompressionMiddleware<AppRequestContext>.acceptsGzip(request.headers[.acceptEncoding])
        if gzip { headers[.contentEncoding] = "gzip" }
        let encoder = ExportEncoder(format: format, bands: bands, loudness: loudness)
        let exports = exports
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let output = try ExportOutput(gzip: gzip)
                var chunk = ByteBuffer()
                encoder.head(into: &chunk)
                var after: Int64 = 0
                while true {
                    let page = try await exports.page(after: after, limit: Self.pageSize)
                    guard let last = page.last else { break }
                    for venue in page {
                        encoder.venue(venue, first: after == 0 && venue.id == page.first?.id, into: &chunk)
                        if chunk.readableBytes >= Self.chunkBytes {
                            try await output.write(&chunk, to: &writer)
                        }
                    }
                    after = last.id
                }
                encoder.tail(into: &chunk)
                try await output.finish(&chunk, to: &writer)
                try await writer.finish(nil)
            })
    }

    /// `W/"cells-<last change µs>-<cells>-<venues>-<what the labels and levels depend on>"`: weak,
    /// as one tag names both the plain and the gzip'd body (byte-for-byte different, same data).
    static func eTag(_ stamp: ExportRepository.Stamp, bands: Bands, referenceOffsetDB: Double) -> String {
        let micros = stamp.lastChange.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) } ?? 0
        let basis =
            bands.bands.map { "\($0.label)<\($0.belowDB.map { "\($0)" } ?? "")" }.joined(separator: "|")
            + "|\(referenceOffsetDB)|\(license.name)"
        let digest = SHA256.hash(data: Data(basis.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        return "W/\"cells-\(micros)-\(stamp.cells)-\(stamp.venues)-\(digest)\""
    }

    /// `If-None-Match` (weak comparison) decides when present; otherwise `If-Modified-Since`
    /// (RFC 9110 §13.1.3), to the second.
    static func notModified(_ request: Request, tag: String, lastChange: Date?) -> Bool {
        if let ifNoneMatch = request.headers[.ifNoneMatch] {
            return EntityTag.match(tag, ifNoneMatch: ifNoneMatch) != nil
        }
        guard let lastChange, let header = request.headers[.ifModifiedSince], let since = HTTPDate.parse(header)
        else { return false }
        return lastChange.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
    }
}

/// HTTP dates (IMF-fixdate, RFC 9110 §5.6.7).
enum HTTPDate {
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    static func format(_ date: Date) -> String { formatter().string(from: date) }
    static func parse(_ text: String) -> Date? { formatter().date(from: text) }
}

/// Writes the export's bytes to the client, gzip'd as they go when asked.
private struct ExportOutput {
    let compressor: (any NIOCompressor)?

    init(gzip: Bool) throws {
        guard gzip else {
            compressor = nil
            return
        }
        let compressor = CompressionAlgorithm.gzip().compressor
        compressor.window = ByteBufferAllocator().buffer(capacity: ExportController.chunkBytes)
        try compressor.startStream()
        self.compressor = compressor
    }

    /// Writes (or compresses) `chunk` and empties it.
    func write(_ chunk: inout ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        if let compressor {
            try await chunk.compressStream(with: compressor, flush: .no) { try await writer.write($0) }
        } else {
            try await writer.write(chunk)
        }
        chunk.clear()
    }

    /// Writes the rest and, gzip'd, the end of the stream.
    func finish(_ chunk: inout ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        guard let compressor else {
            try await write(&chunk, to: &writer)
            return
        }
        try await chunk.compressStream(with: compressor, flush: .finish) { try await writer.write($0) }
        try compressor.finishStream()
        chunk.clear()
    }
}

/// The export's text: GeoJSON (a FeatureCollection, one Point feature per venue) or CSV
/// (RFC 4180, one row per cell).
struct ExportEncoder: Sendable {
    let format: ExportController.Format
    let bands: Bands
    let loudness: LoudnessReads

    static let csvHeader = [
        "venue_id", "name", "category", "timezone", "latitude", "longitude", "day", "hour", "level", "range_low",
        "range_high", "label", "checkins", "devices", "confidence", "estimated", "basis",
    ]

    private struct FeatureCollectionHead: Encodable {
        var type = "FeatureCollection"
        var license = ExportController.license
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

    func head(into buffer: inout ByteBuffer) {
        switch format {
        case .geoJSON:
            // The head object without its closing brace, then the features array.
            var data = (try? JSONEncoder.api.encode(FeatureCollectionHead(bands: bands.bands))) ?? Data("{}".utf8)
            data.removeLast()
            buffer.writeBytes(data)
            buffer.writeString(",\"features\":[")
        case .csv:
            Self.csvRow(Self.csvHeader, into: &buffer)
        }
    }

    func tail(into buffer: inout ByteBuffer) {
        if format == .geoJSON { buffer.writeString("]}\n") }
    }

    /// Appends the venue: a feature (`first` of the collection, or after a comma), or its cells' rows.
    func venue(_ venue: ExportRepository.ExportedVenue, first: Bool, into buffer: inout ByteBuffer) {
        let cells = venue.cells.map { loudness.cell($0, bands: bands) }
        switch format {
        case .geoJSON:
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
            guard let data = try? JSONEncoder.api.encode(feature) else { return }
            if !first { buffer.writeString(",") }
            buffer.writeString("\n")
            buffer.writeBytes(data)
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
    static func csvRow(_ fields: [String], into buffer: inout ByteBuffer) {
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.writeString(",") }
            if field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
                buffer.writeString("\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
            } else {
                buffer.writeString(field)
            }
        }
        buffer.writeString("\r\n")
    }
}
