import AudioTestSupport
import CompressNIO
import Foundation
import HTTPTypes
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `GET /api/v2/export/cells.geojson` and `GET /api/v2/export/cells.csv`: a few hundred venues,
/// two of them with cells the worker judged from real check-ins, the rest with cells written
/// directly (names with commas, quotes and line breaks; estimated cells).
@Suite("Open-data exports")
struct ExportTests {
    static var hasPython: Bool { ProjectPython.isAvailable }
    static let csvHeader = [
        "venue_id", "name", "category", "timezone", "latitude", "longitude", "day", "hour", "level", "range_low",
        "range_high", "label", "checkins", "devices", "confidence", "estimated", "basis",
    ]

    /// The CSV rows the export should hold, from the database (levels calibrated and rounded as the API does).
    static func expectedRows(_ database: PostgresClient) async throws -> [[String]] {
        let offset = EngineTestApp.configuration.referenceOffsetDB
        let rows = try await database.query(
            """
            SELECT v.external_id, v.name, coalesce(v.category, ''), coalesce(v.timezone, ''), v.latitude, v.longitude,
                   l.weekday, l.hour, l.level_dbfs, l.range_low_dbfs, l.range_high_dbfs, l.checkins, l.devices,
                   l.confidence, coalesce(l.basis, '')
            FROM loudness_cells l JOIN venues v ON v.id = l.venue_id ORDER BY v.id, l.weekday, l.hour
            """, logger: EngineTestApp.logger)
        var expected: [[String]] = []
        let columns = (
            String, String, String, String, Double, Double, Int16, Int16, Float, Float, Float, Int32, Int32,
            String, String
        ).self
        for try await row in rows.decode(columns) {
            let (id, name, category, timezone, latitude, longitude) = (row.0, row.1, row.2, row.3, row.4, row.5)
            let (weekday, hour) = (Int(row.6), Int(row.7))
            let level = LoudnessReads.rounded(Double(row.8) + offset)
            let low = LoudnessReads.rounded(Double(row.9) + offset)
            let high = LoudnessReads.rounded(Double(row.10) + offset)
            let (checkins, devices, confidence, basis) = (Int(row.11), Int(row.12), row.13, row.14)
            expected.append([
                id, name, category, timezone, "\(latitude)", "\(longitude)", LocalHour.weekdayNames[weekday - 1],
                "\(hour)", "\(level)", "\(low)", "\(high)",
                LoudnessReads.label(ofCalibratedDB: level, bands: .standard),
                "\(checkins)", "\(devices)", confidence, basis.isEmpty ? "false" : "true", basis,
            ])
        }
        return expected
    }

    /// Runs `script` with the project's Python, `input` on stdin; its stdout.
    static func runPython(_ script: String, input: Data) throws -> Data {
        try ProjectPython.run(script, input: input)
    }

    @Test(
        "both formats: valid GeoJSON (the geojson package), CSV that round-trips through Python's csv, every cell once, nothing personal",
        .enabled(if: hasPython, "no .venv/bin/python: run scripts/deps.sh (it installs geojson into .venv)"))
    func bothFormats() async throws {
        try await EngineTestApp.run { client, database in
            try await ExportDataSet.populate(client, database)
            let expected = try await Self.expectedRows(database)
            #expect(expected.count == 2 + ExportDataSet.bulkVenues * 4 + ExportDataSet.bulkVenues / 2)

            let geo = try await client.execute(uri: "/api/v2/export/cells.geojson", method: .get) { $0 }
            let csv = try await client.execute(uri: "/api/v2/export/cells.csv", method: .get) { $0 }
            #expect(geo.status == .ok)
            #expect(csv.status == .ok)
            #expect(geo.headers[.contentType] == "application/geo+json; charset=utf-8")
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let geoData = Data(buffer: geo.body)
            let csvData = Data(buffer: csv.body)

            // GeoJSON: valid, one feature per venue with data, its cells as stored.
            _ = try Self.runPython(
                "import geojson,sys; o=geojson.loads(sys.stdin.read()); assert o.is_valid, o.errors()", input: geoData)
            let collection = try #require(try JSONSerialization.jsonObject(with: geoData) as? [String: Any])
            #expect(collection["type"] as? String == "FeatureCollection")
            let license = collection["license"] as? [String: Any]
            #expect(license?["name"] as? String == "ODbL-1.0")
            #expect(license?["url"] as? String == "https://opendatacommons.org/licenses/odbl/1-0/")
            let features = try #require(collection["features"] as? [[String: Any]])
            #expect(features.count == 2 + ExportDataSet.bulkVenues)
            let ids = features.compactMap { ($0["properties"] as? [String: Any])?["id"] as? String }
            #expect(Set(ids).count == features.count)
            var geoCells: [String] = []
            for feature in features {
                let properties = try #require(feature["properties"] as? [String: Any])
                for cell in properties["cells"] as? [[String: Any]] ?? [] {
                    geoCells.append(
                        "\(properties["id"]!) \(cell["day"]!) \(cell["hour"]!) \((cell["level"] as? Double) ?? .nan)")
                }
            }
            #expect(geoCells.count == expected.count)
            let wanted = Set(expected.map { "\($0[0]) \($0[6]) \($0[7]) \($0[8])" })
            let sameCells = Set(geoCells) == wanted
            #expect(sameCells, "differ: \(Set(geoCells).symmetricDifference(wanted).sorted().prefix(6))")
            let bulk = try #require(
                features.first { ($0["properties"] as? [String: Any])?["id"] as? String == "bulk-0003" })
            #expect((bulk["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [151.253, -33.497])
            let bulkProperties = try #require(bulk["properties"] as? [String: Any])
            #expect(bulkProperties["name"] as? String == "Bar, \"The 3\"\r\nupstairs")
            #expect(bulkProperties["category"] is NSNull)
            #expect(bulkProperties["timezone"] as? String == "Europe/London")
            // The arms cell, as the venue's grid reports it.
            let arms = try #require(features.first { ($0["properties"] as? [String: Any])?["id"] as? String == "arms" })
            let armsProperties = try #require(arms["properties"] as? [String: Any])
            #expect(armsProperties["level"] as? Double == 65.0)
            #expect(armsProperties["label"] as? String == "quiet")
            let armsCell = try #require((armsProperties["cells"] as? [[String: Any]])?.first)
            let grid = try #require(try await JSONProbe.get("/api/v2/venues/arms/loudness", from: client))
            let gridCell = try #require(
                JSONProbe.cell(grid, day: armsCell["day"] as? String ?? "", hour: armsCell["hour"] as? Int ?? -1))
            for key in ["level", "label", "range", "checkins", "devices", "confidence", "estimated"] {
                #expect("\(armsCell[key] ?? "")" == "\(gridCell[key] ?? "")", "\(key)")
            }
            #expect(armsCell["basis"] == nil)

            // CSV: RFC 4180, a header row, the rows the database holds.
            let text = String(decoding: csvData, as: UTF8.self)
            #expect(text.hasPrefix(Self.csvHeader.joined(separator: ",") + "\r\n"))
            #expect(text.hasSuffix("\r\n"))
            let parsed = try Self.runPython(
                """
                import csv, io, json, sys
                rows = list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline=''), strict=True))
                json.dump(rows, sys.stdout)
                """, input: csvData)
            let rows = try #require(try JSONSerialization.jsonObject(with: parsed) as? [[String]])
            #expect(rows.first == Self.csvHeader)
            let sameRows = Array(rows.dropFirst()) == expected
            #expect(
                sameRows,
                "first difference: \(zip(rows.dropFirst(), expected).first { $0 != $1 }.map { "\($0)" } ?? "counts \(rows.count - 1) vs \(expected.count)")"
            )

            // Nothing personal.
            for body in [geoData, csvData] {
                let text = String(decoding: body, as: UTF8.self).lowercased()
                for checkin in ExportDataSet.checkins {
                    #expect(!text.contains(checkin.device))
                    #expect(!text.contains(checkin.id.uuidString.lowercased()))
                }
            }
        }
    }

    @Test("ETag and Last-Modified give 304s until a cell changes; the Link header names the licence; gzip streams")
    func revalidationAndGzip() async throws {
        try await EngineTestApp.run { client, database in
            try await ExportDataSet.populate(client, database)
            for uri in ["/api/v2/export/cells.geojson", "/api/v2/export/cells.csv"] {
                let first = try await client.execute(uri: uri, method: .get) { $0 }
                let tag = try #require(first.headers[.eTag])
                let lastModified = try #require(first.headers[.lastModified])
                #expect(tag.hasPrefix("W/\""))
                #expect(
                    first.headers[HTTPField.Name("Link")!]
                        == "<https://opendatacommons.org/licenses/odbl/1-0/>; rel=\"license\"")

                let byTag = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { $0 }
                let byDate = try await client.execute(
                    uri: uri, method: .get, headers: [.ifModifiedSince: lastModified]
                ) { $0 }
                let otherTag = try await client.execute(
                    uri: uri, method: .get, headers: [.ifNoneMatch: "W/\"something-else\""]
                ) { $0 }
                #expect(byTag.status == .notModified)
                #expect(byTag.body.readableBytes == 0)
                #expect(byTag.headers[.eTag] == tag)
                #expect(byDate.status == .notModified)
                #expect(otherTag.status == .ok)

                let gzipped = try await client.execute(
                    uri: uri, method: .get, headers: [.acceptEncoding: "gzip"]
                ) { $0 }
                #expect(gzipped.headers[.contentEncoding] == "gzip")
                #expect(gzipped.headers[.eTag] == tag)
                var compressed = gzipped.body
                let plain = try compressed.decompress(with: .gzip())
                #expect(plain == first.body)
                #expect(gzipped.body.readableBytes < first.body.readableBytes / 3)
            }
            let uri = "/api/v2/export/cells.csv"
            let before = try await client.execute(uri: uri, method: .get) { $0 }
            let tag = try #require(before.headers[.eTag])
            try await database.query(
                """
                UPDATE loudness_cells SET level_dbfs = level_dbfs + 1, updated_at = now() + interval '2 seconds'
                WHERE venue_id = (SELECT id FROM venues WHERE external_id = 'bulk-0001') AND hour = 0
                """, logger: EngineTestApp.logger)
            let after = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { $0 }
            #expect(after.status == .ok)
            #expect(after.headers[.eTag] != tag)
            #expect(after.headers[.lastModified] != before.headers[.lastModified])
        }
    }
}
