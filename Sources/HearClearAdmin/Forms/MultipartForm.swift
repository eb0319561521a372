import Foundation

/// A `multipart/form-data` body (RFC 7578, framed as RFC 2046 §5.1.1): what a browser sends for
/// a form with a file. No package for it is at hand, and the admin's uploads need only this much:
/// the parts in order, each with its `Content-Disposition` name, optional file name, headers and
/// bytes. The body is already in memory (``BodyLimitMiddleware`` collected and limited it), so
/// it is parsed whole; nothing is written anywhere.
struct MultipartForm: Sendable {
    struct Part: Sendable {
        /// The form field's name.
        let name: String
        /// The uploaded file's name, for a file field (possibly empty: no file chosen).
        let filename: String?
        /// The part's headers in order, names as sent.
        let headers: [(name: String, value: String)]
        let body: Data

        /// The first header called `name`, case-insensitively.
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The body as text (UTF-8, invalid bytes replaced).
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Why a body is not a form this parser accepts. The description is a sentence for a person.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case notMultipart
        case missingBoundary
        case invalidBoundary
        case missingOpeningDelimiter
        case missingClosingDelimiter
        case malformedDelimiter(part: Int)
        case tooManyParts(limit: Int)
        case malformedHeaders(part: Int)
        case missingName(part: Int)

        var description: String {
            switch self {
            case .notMultipart: "the body is not multipart/form-data"
            case .missingBoundary: "the Content-Type names no boundary"
            case .invalidBoundary: "the boundary is empty, longer than 70 characters or holds a line break"
            case .missingOpeningDelimiter: "the body does not start with the boundary"
            case .missingClosingDelimiter: "the body ends before its closing boundary"
            case .malformedDelimiter(let part): "the boundary before part \(part) is not followed by a line break"
            case .tooManyParts(let limit): "the form has more than \(limit) parts"
            case .malformedHeaders(let part):
                "part \(part) has no blank line after its headers, or a header without a colon"
            case .missingName(let part): "part \(part) has no Content-Disposition form-data name"
            }
        }
    }

    /// More parts than any admin form has is not a form but an attempt to make work.
    static let maximumParts = 20
    /// A part's headers are a few short lines; past this the blank line is not looked for further.
    static let maximumHeaderBytes = 8 << 10

    let parts: [Part]

    /// Parses `body` with the boundary given by `contentType`.
    init(contentType: String?, body: Data) throws(Failure) {
        try self.init(boundary: Self.boundary(contentType: contentType), body: body)
    }

    /// Parses `body`: an optional preamble, then `--boundary` lines each followed by a part (headers,
    /// a blank line, the bytes up to the CRLF before the next boundary), then `--boundary--` and an
    /// ignored epilogue. Bytes inside a part may be anything but the delimiter itself.
    init(boundary: String, body: Data) throws(Failure) {
        let bytes = [UInt8](body)
        let dashBoundary = Array(("--" + boundary).utf8)
        let delimiter = [13, 10] + dashBoundary
        // The first boundary may open the body, or follow a preamble after a CRLF.
        var position: Int
        if bytes.starts(with: dashBoundary) {
            position = dashBoundary.count
        } else if let found = Self.find(delimiter, in: bytes, from: 0) {
            position = found + delimiter.count
        } else {
            throw .missingOpeningDelimiter
        }
        var parts: [Part] = []
        while true {
            // After a delimiter: `--` closes the body; else optional padding, then CRLF.
            if bytes[position...].starts(with: [45, 45]) { break }
            while position < bytes.count, bytes[position] == 32 || bytes[position] == 9 { position += 1 }
            guard bytes[position...].starts(with: [13, 10]) else {
                throw position >= bytes.count ? .missingClosingDelimiter : .malformedDelimiter(part: parts.count + 1)
            }
            position += 2
            guard parts.count < Self.maximumParts else { throw .tooManyParts(limit: Self.maximumParts) }
            guard let end = Self.find(delimiter, in: bytes, from: position) else { throw .missingClosingDelimiter }
            parts.append(try Self.part(bytes[position..<end], number: parts.count + 1))
            position = end + delimiter.count
        }
        self.parts = parts
    }

    /// The first part called `name`.
    subscript(name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// The fields that are not files, as text, in order.
    var fields: [(name: String, value: String)] {
        parts.filter { $0.filename == nil }.map { ($0.name, $0.text) }
    }

    /// Whether a `Content-Type` says `multipart/form-data`.
    static func isMultipart(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        return mediaType(contentType) == "multipart/form-data"
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, quoted or not.
    static func boundary(contentType: String?) throws(Failure) -> String {
        guard let contentType, isMultipart(contentType) else { throw .notMultipart }
        guard let boundary = parameters(contentType)["boundary"] else { throw .missingBoundary }
        guard (1...70).contains(boundary.count), !boundary.contains(where: \.isNewline) else {
            throw .invalidBoundary
        }
        return boundary
    }

    // MARK: - Parts

    private static func part(_ bytes: ArraySlice<UInt8>, number: Int) throws(Failure) -> Part {
        // Headers end at a blank line; a part with no headers starts with it.
        let headerEnd: Int
        let bodyStart: Int
        if bytes.starts(with: [13, 10]) {
            (headerEnd, bodyStart) = (bytes.startIndex, bytes.startIndex + 2)
        } else {
            let searched = bytes.prefix(maximumHeaderBytes)
            guard let blank = find([13, 10, 13, 10], in: Array(searched), from: 0) else {
                throw .malformedHeaders(part: number)
            }
            (headerEnd, bodyStart) = (bytes.startIndex + blank, bytes.startIndex + blank + 4)
        }
        var headers: [(name: String, value: String)] = []
        let text = String(decoding: bytes[bytes.startIndex..<headerEnd], as: UTF8.self)
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedHeaders(part: number) }
            headers.append(
                (
                    String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                    String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                ))
        }
        let disposition = headers.first { $0.name.caseInsensitiveCompare("Content-Disposition") == .orderedSame }
        guard let disposition, mediaType(disposition.value) == "form-data",
            let name = parameters(disposition.value)["name"]
        else { throw .missingName(part: number) }
        return Part(
            name: name, filename: parameters(disposition.value)["filename"], headers: headers,
            body: Data(bytes[bodyStart...]))
    }

    // MARK: - Header values: `type; key=value; key="quoted \" value"`

    /// The part before the first `;`, lowercased.
    private static func mediaType(_ value: String) -> String {
        (value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? "").trimmingCharacters(in: .whitespaces)
            .lowercased()
    }

    /// The parameters after the first `;`, names lowercased; a quoted value may hold `;` and
    /// backslash-escaped characters. The first of a repeated name wins.
    static func parameters(_ value: String) -> [String: String] {
        var result: [String: String] = [:]
        var characters = Substring(value)
        // Skip the type itself.
        guard let first = characters.firstIndex(of: ";") else { return [:] }
        characters = characters[characters.index(after: first)...]
        while !characters.isEmpty {
            characters = characters.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            let name = characters.prefix { $0 != "=" && $0 != ";" }
            characters = characters.dropFirst(name.count)
            var parameterValue = ""
            if characters.first == "=" {
                characters = characters.dropFirst()
                if characters.first == "\"" {
                    characters = characters.dropFirst()
                    while let character = characters.first, character != "\"" {
                        characters = characters.dropFirst()
                        if character == "\\", let escaped = characters.first {
                            parameterValue.append(escaped)
                            characters = characters.dropFirst()
                        } else {
                            parameterValue.append(character)
                        }
                    }
                    characters = characters.dropFirst()  // the closing quote
                    characters = characters.drop { $0 != ";" }
                } else {
                    let raw = characters.prefix { $0 != ";" }
                    characters = characters.dropFirst(raw.count)
                    parameterValue = raw.trimmingCharacters(in: .whitespaces)
                }
            }
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if !key.isEmpty, result[key] == nil { result[key] = parameterValue }
        }
        return result
    }

    // MARK: - Searching bytes

    /// The first index at or after `start` where `needle` occurs in `haystack`. Checks the first
    /// byte before comparing the rest: a delimiter's `\r` is rare in most uploads.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let head = needle.first, haystack.count >= needle.count else { return nil }
        let last = haystack.count - needle.count
        guard start <= last else { return nil }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                var index = start
                while index <= last {
                    if hay[index] == head {
                        var matched = 1
                        while matched < pin.count, hay[index + matched] == pin[matched] { matched += 1 }
                        if matched == pin.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}
