import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HearClearServer

/// `hearclear export` against a test database through `--database-url`, beside the API's export
/// of the same data; and the licence as a setting.
@Suite("hearclear export and the data licence")
struct ExportCommandTests {
    @Test("export --output writes the API's CSV byte for byte; without --output the GeoJSON goes to standard output")
    func commandWritesTheAPIsBytes() async throws {
        try await withTestDatabase { database, databaseConfiguration in
            let app = try await buildApplication(
                configuration: EngineTestApp.configuration, database: .external(databaseConfiguration),
                logger: EngineTestApp.logger)
            try await app.boundedTest(.router) { client in
                try await ExportDataSet.populate(client, database)
                let csv = try await client.execute(uri: "/api/v2/export/cells.csv", method: .get) { $0 }
                let geo = try await client.execute(uri: "/api/v2/export/cells.geojson", method: .get) { $0 }
                #expect(csv.status == .ok)
                #expect(geo.status == .ok)

                let url = try await HearClearCommand.databaseURL(databaseConfiguration)
                try await withScratchDirectory { scratch in
                    let file = scratch.appendingPathComponent("cells.csv")
                    let toFile = try await HearClearCommand.run(
                        ["export", "--format", "csv", "--output", file.path, "--database-url", url], scratch: scratch)
                    #expect(toFile.status == 0, "\(toFile.errors)")
                    #expect(toFile.output.isEmpty)
                    #expect(toFile.errors.contains("Wrote \(ExportDataSet.bulkVenues + 2) venues (csv)"))
                    let written = try Data(contentsOf: file)
                    #expect(written == Data(buffer: csv.body))
                    // Only the finished file is left: no temporary beside it.
                    let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
                    #expect(!left.contains { $0.hasSuffix(".partial") }, "\(left)")

                    let toOutput = try await HearClearCommand.run(["export", "--database-url", url], scratch: scratch)
                    #expect(toOutput.status == 0, "\(toOutput.errors)")
                    #expect(Data(toOutput.output.utf8) == Data(buffer: geo.body))

                    // A licence other than the default needs its URL; a URL must be http(s).
                    let nameOnly = try await HearClearCommand.run(
                        ["export", "--data-license", "CC-BY-4.0", "--database-url", url], scratch: scratch)
                    #expect(nameOnly.status != 0)
                    #expect(nameOnly.errors.contains("needs its URL (--data-license-url)"), "\(nameOnly.errors)")
                    let badURL = try await HearClearCommand.run(
                        [
                            "export", "--data-license", "CC-BY-4.0", "--data-license-url", "ftp://example.org/x",
                            "--output", scratch.appendingPathComponent("never.geojson").path, "--database-url", url,
                        ], scratch: scratch)
                    #expect(badURL.status != 0)
                    #expect(badURL.errors.contains("absolute http(s) URL"), "\(badURL.errors)")
                    #expect(
                        !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("never.geojson").path))
                    let stillThere = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
                    #expect(!stillThere.contains { $0.hasSuffix(".partial") }, "\(stillThere)")
                }
            }
        }
    }

    @Test("a licence set in the configuration is the one the GeoJSON, the Link header and the ETag carry")
    func configuredLicence() async throws {
        let licence = try DataLicense.configured(name: "CC-BY-4.0", url: "https://creativecommons.org/licenses/by/4.0/")
        try await EngineTestApp.run(configure: { $0.engine.dataLicense = licence }) { client, database in
            try await ExportDataSet.populate(client, database)
            let geo = try await client.execute(uri: "/api/v2/export/cells.geojson", method: .get) { $0 }
            #expect(geo.status == .ok)
            #expect(
                geo.headers[HTTPField.Name("Link")!]
                    == "<https://creativecommons.org/licenses/by/4.0/>; rel=\"license\"")
            let collection = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: geo.body)) as? [String: Any])
            let named = collection["license"] as? [String: Any]
            #expect(named?["name"] as? String == "CC-BY-4.0")
            #expect(named?["url"] as? String == "https://creativecommons.org/licenses/by/4.0/")
            // A mirror holding the ODbL export must not be told it is still current.
            let stamp = try await CellExporter(engine: Engine.testing(database)).stamp()
            let odblTag = ExportController.eTag(
                stamp, bands: .standard, referenceOffsetDB: EngineTestApp.configuration.referenceOffsetDB,
                license: .odbl)
            #expect(geo.headers[.eTag] != odblTag)
            let mirror = try await client.execute(
                uri: "/api/v2/export/cells.geojson", method: .get, headers: [.ifNoneMatch: odblTag]
            ) { $0 }
            #expect(mirror.status == .ok)
        }
    }

    @Test("licence settings: the default, a name with its URL, and what is refused")
    func licenceSettings() throws {
        #expect(try DataLicense.configured(name: nil, url: nil) == .odbl)
        #expect(try DataLicense.configured(name: "ODbL-1.0", url: nil) == .odbl)
        #expect(
            try DataLicense.configured(name: "CC0-1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/")
                == DataLicense(name: "CC0-1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/"))
        for (name, url) in [
            ("CC0-1.0", nil), ("", "https://example.org"), ("ODbL-1.0", "https://example.org/a b"),
            ("ODbL-1.0", "https://example.org/>; rel=\"x\""), ("ODbL-1.0", "mailto:a@example.org"),
            ("ODbL-1.0", "/relative"), ("bad\nname", "https://example.org"),
        ] as [(String, String?)] {
            #expect(throws: ConfigurationError.self, "\(name) \(url ?? "nil")") {
                try DataLicense.configured(name: name, url: url)
            }
        }
    }
}
