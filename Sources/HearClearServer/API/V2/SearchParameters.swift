import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import LoudnessCore

/// The query parameters of the search endpoints, checked one by one: every bad one is a field
/// error whose pointer is the parameter's name, and all of them come back in one 422 problem.
struct SearchParameters {
    /// Radius when none is given, metres.
    static let defaultRadiusMetres = 1_000.0
    /// Largest radius, metres.
    static let maximumRadiusMetres = 50_000.0
    static let defaultLimit = 20
    static let maximumLimit = 100

    let query: [String: String]
    private(set) var errors: [Problem.FieldError] = []
    /// When the request was handled: what `at=now` means.
    let now: Date

    init(_ request: Request, now: Date = Date()) {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        self.query = query
        self.now = now
    }

    private mutating func fail(_ name: String, _ detail: String) {
        errors.append(Problem.FieldError(name, detail))
    }

    /// Throws the 422 problem when any parameter was bad.
    func check() throws {
        guard errors.isEmpty else { throw Problem.validation(errors) }
    }

    /// `near=LAT,LON`, decimal degrees; required.
    mutating func near() -> (latitude: Double, longitude: Double)? {
        guard let text = query["near"] else {
            fail("near", "near is required: the point to search around, as LAT,LON in decimal degrees")
            return nil
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = Self.number(parts[0]), let longitude = Self.number(parts[1]) else {
            fail("near", "near must be LAT,LON in decimal degrees, e.g. 51.5072,-0.1276")
            return nil
        }
        guard (-90...90).contains(latitude) else {
            fail("near", "the latitude of near must be between -90 and 90, not \(latitude)")
            return nil
        }
        guard (-180...180).contains(longitude) else {
            fail("near", "the longitude of near must be between -180 and 180, not \(longitude)")
            return nil
        }
        return (latitude, longitude)
    }

    /// `q`: the start of a venue's name or of a word of it, 1–100 characters once spaces around
    /// it are trimmed, none of them NUL; `nil` when absent.
    mutating func q() -> String? {
        guard let text = query["q"] else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            fail("q", "q must not be empty: the start of a venue's name, e.g. arms")
            return nil
        }
        guard trimmed.unicodeScalars.count <= Self.maximumNameLength else {
            fail("q", "q must be at most \(Self.maximumNameLength) characters")
            return nil
        }
        guard !trimmed.unicodeScalars.contains("\u{0}") else {
            fail("q", "q must not contain the NUL character")
            return nil
        }
        guard NameWords.searchWords(of: trimmed).count <= NameWords.maximumSearchWords else {
            fail("q", "q must have at most \(NameWords.maximumSearchWords) words")
            return nil
        }
        return trimmed
    }

    /// Longest `q`, characters.
    static let maximumNameLength = 100

    /// `near` when given (a search by name needs none): `nil` when absent or bad.
    mutating func optionalNear() -> (latitude: Double, longitude: Double)? {
        query["near"] == nil ? nil : near()
    }

    /// A search by name takes no level filter and no `sort=level` (yet): each one given is an error.
    mutating func refuseWithName() {
        for name in ["maxLevel", "label"] where query[name] != nil {
            fail(name, "\(name) cannot be combined with q (a search by name); search by near alone to filter by level")
        }
        if query["sort"] == "level" {
            fail("sort", "sort=level cannot be combined with q (a search by name is ordered by distance and name)")
        }
    }

    /// `radius` in metres: more than 0, at most 50,000; 1,000 when absent (or `defaultMetres`).
    mutating func radius(default defaultMetres: Double = defaultRadiusMetres) -> Double {
        guard let text = query["radius"] else { return defaultMetres }
        guard let radius = Self.number(Substring(text)), radius > 0, radius <= Self.maximumRadiusMetres else {
            fail("radius", "radius must be a number of metres above 0 and at most \(Int(Self.maximumRadiusMetres))")
            return defaultMetres
        }
        return radius
    }

    /// `at`: an RFC 3339 instant with its offset, or `now`; `nil` when absent.
    mutating func at() -> Date? {
        guard let text = query["at"] else { return nil }
        if text == "now" { return now }
        guard let timestamp = RFC3339.parse(text) else {
            fail("at", "at must be `now` or an RFC 3339 instant with its offset, e.g. 2026-11-27T21:00:00+00:00")
            return nil
        }
        guard Self.instants.contains(timestamp.date) else {
            fail("at", "at must be an instant in the years 2000 to 2099")
            return nil
        }
        return timestamp.date
    }

    /// The instants `at` may name: 2000-01-01T00:00Z up to 2100-01-01T00:00Z (answers echo `at`
    /// in RFC 3339, whose year has four digits).
    static let instants = Date(timeIntervalSince1970: 946_684_800)..<Date(timeIntervalSince1970: 4_102_444_800)

    /// `maxLevel` in dB; `nil` when absent.
    mutating func maxLevel() -> Double? {
        guard let text = query["maxLevel"] else { return nil }
        guard let level = Self.number(Substring(text)), (0...200).contains(level) else {
            fail("maxLevel", "maxLevel must be a level in dB between 0 and 200")
            return nil
        }
        return level
    }

    /// `label`: band labels separated by commas, each one of `bands`; empty when absent.
    mutating func labels(in bands: Bands) -> [String] {
        guard let text = query["label"] else { return [] }
        let labels = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let known = bands.bands.map(\.label)
        let unknown = labels.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            let names = unknown.map { $0.isEmpty ? "an empty label" : "'\($0)'" }.joined(separator: ", ")
            fail(
                "label",
                "label must be band labels separated by commas (\(known.joined(separator: ", "))), not \(names)")
            return []
        }
        return labels
    }

    /// `category`: 1–100 characters; `nil` when absent.
    mutating func category() -> String? {
        guard let text = query["category"] else { return nil }
        guard !text.isEmpty, text.unicodeScalars.count <= 100, !text.unicodeScalars.contains("\u{0}") else {
            fail("category", "category must be 1 to 100 characters, none of them NUL")
            return nil
        }
        return text
    }

    /// `sort`: `distance` (default) or `level`.
    mutating func sort() -> VenueSearchQuery.Order {
        guard let text = query["sort"] else { return .distance }
        guard let order = VenueSearchQuery.Order(rawValue: text) else {
            fail("sort", "sort must be distance or level")
            return .distance
        }
        return order
    }

    /// `limit`: 1…100; `defaultLimit` when absent.
    mutating func limit(default defaultLimit: Int = defaultLimit) -> Int {
        guard let text = query["limit"] else { return defaultLimit }
        guard let limit = Int(text), (1...Self.maximumLimit).contains(limit) else {
            fail("limit", "limit must be a whole number from 1 to \(Self.maximumLimit)")
            return defaultLimit
        }
        return limit
    }

    /// `cursor`: the position after which this page starts, and the `at` the first page used;
    /// it must come from a search with the same parameters.
    mutating func cursor<Cursor: PageCursor>(_: Cursor.Type, fingerprint: String) -> Cursor? {
        guard let text = query["cursor"] else { return nil }
        guard let cursor = Cursor(encoded: text) else {
            fail("cursor", "cursor is not one this server made; take the `next` link of a search")
            return nil
        }
        guard cursor.fingerprint == fingerprint else {
            fail("cursor", "cursor belongs to a search with other parameters; take the `next` link of this search")
            return nil
        }
        return cursor
    }

    /// The parameters that define a search's results (all but `cursor` and `limit`), in one
    /// canonical string: a cursor is valid only for the same ones.
    func fingerprint() -> String {
        let names = ["near", "radius", "at", "maxLevel", "label", "category", "sort"]
        var canonical = names.map { "\($0)=\(query[$0] ?? "")" }.joined(separator: "&")
        // Only when given: the fingerprints of searches without it stay what they were.
        if let q = query["q"] { canonical += "&q=\(q)" }
        return SearchCursor.hash(canonical)
    }

    /// The link to the next page: these parameters with `cursor` set.
    func next(path: String, cursor: some PageCursor) -> String {
        next(path: path, encodedCursor: cursor.encoded)
    }

    private func next(path: String, encodedCursor: String) -> String {
        var link = Array(path.utf8)
        var first = true
        let items = query.filter { $0.key != "cursor" }.sorted { $0.key < $1.key } + [("cursor", encodedCursor)]
        for (name, value) in items {
            link.append(first ? UInt8(ascii: "?") : UInt8(ascii: "&"))
            first = false
            Self.appendEncoded(name, to: &link)
            link.append(UInt8(ascii: "="))
            Self.appendEncoded(value, to: &link)
        }
        return String(decoding: link, as: UTF8.self)
    }

    /// A query name or value, percent-encoded as `URLComponents` encodes query items, except
    /// that `+` (an RFC 3339 offset) is `%2B`, never left to be read as a space, and `&`, `=`
    /// and `#` are encoded too: kept as they are, the unreserved characters and `!$'()*,;:@/?`.
    static func appendEncoded(_ text: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"),
                UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            }
        }
    }

    /// A decimal number (no NaN, infinities or hex).
    static func number(_ text: Substring) -> Double? {
        // Spaces and tabs around it are let be (Foundation's `.whitespaces`, without its cost).
        var trimmed = text
        while let first = trimmed.first, first.isWhitespace, !first.isNewline { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace, !last.isNewline { trimmed.removeLast() }
        guard !trimmed.isEmpty,
            trimmed.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E" }),
            let value = Double(trimmed), value.isFinite
        else { return nil }
        return value
    }
}

/// Where the next page of a search by name starts: the search's fingerprint and `at`, and the
/// last hit's distance, name and id (base64url of JSON, like ``SearchCursor``).
struct NameCursor: PageCursor, Equatable {
    var fingerprint: String
    var at: Date?
    var distanceMetres: Double
    var name: String
    var venueID: Int64

    init(fingerprint: String, at: Date?, distanceMetres: Double, name: String, venueID: Int64) {
        self.fingerprint = fingerprint
        self.at = at
        self.distanceMetres = distanceMetres
        self.name = name
        self.venueID = venueID
    }

    init?(encoded: String) {
        guard let data = Self.base64URLDecoded(encoded, limit: 2_000),
            let cursor = try? JSONDecoder().decode(NameCursor.self, from: data), cursor.distanceMetres.isFinite,
            cursor.at.map(SearchParameters.instants.contains) ?? true
        else { return nil }
        self = cursor
    }

    var encoded: String { Self.base64URL((try? JSONEncoder().encode(self)) ?? Data()) }
}

/// A cursor of a paged search: opaque to clients (base64url of JSON), made for the search whose
/// ``SearchParameters/fingerprint()`` it carries.
protocol PageCursor: Codable {
    var fingerprint: String { get }
    var at: Date? { get }
    init?(encoded: String)
    var encoded: String { get }
}

extension PageCursor {
    /// base64url without padding, by bytes (Foundation's string replacing was a twentieth of a search).
    static func base64URL(_ json: some Sequence<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160)
        for byte in Data(json).base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of base64url text of at most `limit` characters, padded or not; nil when it is not.
    static func base64URLDecoded(_ encoded: String, limit: Int) -> Data? {
        guard encoded.count <= limit else { return nil }
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Where the next page starts: opaque to clients (base64url of JSON), checked against the
/// parameters of the search that made it.
struct SearchCursor: PageCursor, Equatable {
    /// ``SearchParameters/fingerprint()`` of the search.
    var fingerprint: String
    /// The instant the first page resolved `at` to (`now` must not move between pages).
    var at: Date?
    var position: VenueSearchQuery.Position

    init(fingerprint: String, at: Date?, position: VenueSearchQuery.Position) {
        self.fingerprint = fingerprint
        self.at = at
        self.position = position
    }

    init?(encoded: String) {
        guard let data = Self.base64URLDecoded(encoded, limit: 1_000),
            let cursor = try? JSONDecoder().decode(SearchCursor.self, from: data),
            cursor.position.distanceMetres.isFinite, cursor.position.levelDB?.isFinite ?? true,
            cursor.at.map(SearchParameters.instants.contains) ?? true
        else { return nil }
        self = cursor
    }

    var encoded: String { Self.base64URL(json) }

    /// The cursor's JSON: exactly what `JSONEncoder` with sorted keys writes of it (absent
    /// optionals left out, `at` as seconds since 2001), by ``JSONWriter`` (`SearchCursorTests`).
    var json: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.object { w in
            if let at {
                w.key("at")
                w.number(at.timeIntervalSinceReferenceDate)
            }
            w.key("fingerprint")
            w.string(fingerprint)
            w.key("position")
            w.object { w in
                w.key("distanceMetres")
                w.number(position.distanceMetres)
                if let level = position.levelDB {
                    w.key("levelDB")
                    w.number(level)
                }
                w.key("venueID")
                w.int(Int(position.venueID))
            }
        }
        return writer.bytes
    }

    /// ``FNV1a`` in hex: the same in every instance, so a cursor works on any of them.
    static func hash(_ text: String) -> String { String(FNV1a.hash(text), radix: 16) }
}
