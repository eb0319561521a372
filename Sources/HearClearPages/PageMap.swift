import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird

/// The map on the pages' results (`--map-tiles-url`): Leaflet, from Debian's `libjs-leaflet`,
/// served from here; only the tiles come from the operator's tile server, and only when one is
/// set. Without it the pages load nothing from elsewhere.
public struct PageMap: Sendable, Equatable {
    /// `http(s)://host/…{z}…{x}…{y}…`.
    public let tilesURL: String
    /// The credit the tile server asks for, as plain text.
    public let attribution: String
    /// Where `leaflet.js`, `leaflet.css` and `images/` are.
    public let leafletDirectory: String

    /// Refuses a tile URL that is not `http(s)` with a host and all of `{z}`, `{x}`, `{y}`, or
    /// that holds characters a URL template does not need (quotes, spaces, angle brackets).
    public init(tilesURL: String, attribution: String, leafletDirectory: String) throws {
        let example = "e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png"
        for part in ["{z}", "{x}", "{y}"] where !tilesURL.contains(part) {
            throw ConfigurationError.invalid("--map-tiles-url must contain \(part), \(example)")
        }
        let filled = tilesURL.replacingOccurrences(of: "{z}", with: "0").replacingOccurrences(of: "{x}", with: "0")
            .replacingOccurrences(of: "{y}", with: "0").replacingOccurrences(of: "{s}", with: "a")
        guard tilesURL.count <= 500, !tilesURL.contains(where: { "\"'<> \\`".contains($0) }),
            let url = URLComponents(string: filled), ["http", "https"].contains(url.scheme ?? ""),
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationError.invalid("--map-tiles-url must be an http(s) URL of tiles, \(example)")
        }
        guard attribution.count <= 300 else {
            throw ConfigurationError.invalid("--map-attribution must be at most 300 characters")
        }
        guard FileManager.default.fileExists(atPath: leafletDirectory + "/leaflet.js") else {
            throw ConfigurationError.invalid(
                "Leaflet is not in \(leafletDirectory): install Debian's libjs-leaflet (make deps does), or set --leaflet-directory"
            )
        }
        self.tilesURL = tilesURL
        self.attribution = attribution
        self.leafletDirectory = leafletDirectory
    }

    /// The tile server's origin (`scheme://host[:port]`, with `{s}` subdomains as `*.`), which
    /// the pages' `Content-Security-Policy` lets images come from.
    var origin: String {
        let filled = tilesURL.replacingOccurrences(of: "{s}", with: "SUBDOMAIN")
        guard
            let url = URLComponents(
                string: filled.replacingOccurrences(of: "{z}", with: "0")
                    .replacingOccurrences(of: "{x}", with: "0").replacingOccurrences(of: "{y}", with: "0")),
            let scheme = url.scheme, let host = url.host
        else { return "'none'" }
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host.replacingOccurrences(of: "SUBDOMAIN", with: "*"))\(port)"
    }
}

/// Leaflet's files, read once at start: the script, its style sheet and its images.
struct LeafletFiles: Sendable {
    let files: [String: Asset]

    static let names: [(name: String, contentType: String)] = [
        ("leaflet.js", "text/javascript; charset=utf-8"), ("leaflet.css", "text/css; charset=utf-8"),
        ("images/marker-icon.png", "image/png"), ("images/marker-icon-2x.png", "image/png"),
        ("images/marker-shadow.png", "image/png"), ("images/layers.png", "image/png"),
        ("images/layers-2x.png", "image/png"),
    ]

    init(directory: String) throws {
        let folder = TemplateFolder(directory, what: "Leaflet's")
        var files: [String: Asset] = [:]
        for (name, contentType) in Self.names {
            files[name] = Asset(try folder.file(name, kind: "file"), contentType: contentType)
        }
        self.files = files
    }
}
