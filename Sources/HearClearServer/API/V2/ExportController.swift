import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import LoudnessCore

/// `GET /api/v2/export/cells.geojson` and `GET /api/v2/export/cells.csv`: every venue with data and
/// its cells as the API reports them (calibrated dB rounded to 0.1 dB, labelled with the bands in
/// force), streamed in keyset pages of venues so memory stays flat however many there are, gzip'd
/// as it streams when asked. A weak `ETag` and `Last-Modified` come from the last cell change and
/// the counts of cells and venues, so a mirror revalidates with a 304. Nothing personal: no device,
/// check-in, sample or time of a check-in is read (docs/ARCHITECTURE.md, "Exports").
struct ExportController {
    /// `Link` (RFC 8288), which HTTPTypes does not name.
    static let linkHeader = HTTPField.Name("Link")!

    let exporter: CellExporter
    let loudness: LoudnessReads
    let reads: CachedReads

    init(engine: Engine, reads: CachedReads) {
        exporter = CellExporter(engine: engine)
        loudness = engine.loudness
        self.reads = reads
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("export/cells.geojson") { request, _ in try await export(.geojson, request) }
        group.get("export/cells.csv") { request, _ in try await export(.csv, request) }
    }

    func export(_ format: CellExportFormat, _ request: Request) async throws -> Response {
        let bands = try await reads.currentBands()
        let stamp = try await exporter.stamp()
        let tag = Self.eTag(
            stamp, bands: bands, referenceOffsetDB: loudness.referenceOffsetDB, license: exporter.license)
        var headers: HTTPFields = [
            .eTag: tag, .cacheControl: "public, no-cache",
            ExportController.linkHeader: "<\(exporter.license.url)>; rel=\"license\"",
        ]
        if let last = stamp.lastChange { headers[.lastModified] = HTTPDate.format(last) }
        if Self.notModified(request, tag: tag, lastChange: stamp.lastChange) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = format.contentType
        guard request.method != .head else { return Response(status: .ok, headers: headers) }
        let gzip = ResponseCompressionMiddleware<AppRequestContext>.acceptsGzip(request.headers[.acceptEncoding])
        if gzip { headers[.contentEncoding] = "gzip" }
        let exporter = exporter
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let output = try ExportOutput(gzip: gzip)
                try await exporter.write(format, bands: bands) { chunk in
                    var buffer = ByteBuffer(bytes: chunk)
                    try await output.write(&buffer, to: &writer)
                }
                var rest = ByteBuffer()
                try await output.finish(&rest, to: &writer)
                try await writer.finish(nil)
            })
    }

    /// `W/"cells-<last change µs>-<cells>-<venues>-<what the labels and levels depend on>"`: weak,
    /// as one tag names both the plain and the gzip'd body (byte-for-byte different, same data).
    static func eTag(
        _ stamp: ExportStamp, bands: Bands, referenceOffsetDB: Double, license: DataLicense
    ) -> String {
        let micros = stamp.lastChange.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) } ?? 0
        let basis =
            bands.bands.map { "\($0.label)<\($0.belowDB.map { "\($0)" } ?? "")" }.joined(separator: "|")
            + "|\(referenceOffsetDB)|\(license.name)|\(license.url)"
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
        compressor.window = ByteBufferAllocator().buffer(capacity: CellExporter.chunkBytes)
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
            if chunk.readableBytes > 0 { try await write(&chunk, to: &writer) }
            return
        }
        try await chunk.compressStream(with: compressor, flush: .finish) { try await writer.write($0) }
        try compressor.finishStream()
        chunk.clear()
    }
}
