import ArgumentParser
import Foundation
import HearClearCLI
import HearClearEngine

/// `hearclear export`: the open-data export, written from the database.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the open-data export of every venue with data and its cells, as GeoJSON or CSV.",
        discussion: """
            The same bytes as GET /api/v2/export/cells.geojson or cells.csv: each venue's public fields \
            (id, name, category, zone, coordinates) and its cells as the API reports them (calibrated dB \
            rounded to 0.1 dB, labelled with the bands in force), under the licence of --data-license. \
            Nothing personal: no device, check-in, sample or time of a check-in. Read from DATABASE_URL or \
            the data directory's embedded PostgreSQL (a running server's, or one started for the export), \
            in pages of venues, so memory stays flat however many there are.

            Without --output the export goes to standard output. With it, it is written to a temporary \
            file beside FILE and renamed over FILE once complete, so FILE is never half-written; a progress \
            bar (venues written) goes to standard error.
            """
    )

    @Option(help: "geojson (a FeatureCollection, one feature per venue) or csv (RFC 4180, one row per cell).")
    var format: CellExportFormat = .geojson

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    @OptionGroup var license: DataLicenseOptions

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let destination = try output.map(ExportFile.init(path:))
        do {
            let venues = try await DatabaseSession.run(options, extra: license.values) { engine, _ in
                let exporter = CellExporter(engine: engine)
                let bands = try await engine.loudness.currentBands()
                let total = try await exporter.stamp().venues
                let bar = destination.map { _ in ProgressBar(total: total, label: "venues") }
                let handle = destination?.handle ?? FileHandle.standardOutput
                try await exporter.write(format, bands: bands, progress: { bar?.update($0) }) { chunk in
                    try handle.write(contentsOf: chunk)
                }
                bar?.finish(total)
                return total
            }
            if let destination {
                try destination.commit()
                FileHandle.standardError.write(
                    Data("Wrote \(venues) venues (\(format.rawValue)) to \(destination.path).\n".utf8))
            }
        } catch {
            destination?.discard()
            throw error
        }
    }
}

extension CellExportFormat: ExpressibleByArgument {}

/// A file written under a temporary name beside its path, renamed over it once complete.
private struct ExportFile {
    let path: String
    let temporaryPath: String
    let handle: FileHandle

    init(path: String) throws {
        let url = URL(fileURLWithPath: path)
        self.path = path
        temporaryPath =
            url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).partial").path
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil) else {
            throw ValidationError("cannot write \(temporaryPath): check that the folder exists and is writable")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporaryPath))
    }

    func commit() throws {
        try handle.synchronize()
        try handle.close()
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw ValidationError("cannot rename \(temporaryPath) to \(path): \(reason)")
        }
    }

    func discard() {
        try? handle.close()
        unlink(temporaryPath)
    }
}
