import Foundation
import HearClearModel
import Testing

@testable import HearClearAdmin
@testable import HearClearServer

/// `MultipartForm` on bodies written out by hand, CRLF line endings as RFC 2046 has them.
@Suite("multipart/form-data parser")
struct MultipartFormTests {
    /// `lines` joined with CRLF, as bytes.
    static func body(_ lines: [String]) -> Data {
        Data(lines.joined(separator: "\r\n").utf8)
    }

    @Test("text fields and a file: names, file name, headers and bytes, in order")
    func fieldsAndFile() throws {
        let body = Self.body([
            "--XyZ", "Content-Disposition: form-data; name=\"csrf\"", "", "token-123",
            "--XyZ", "Content-Disposition: form-data; name=\"model\"", "", "iPhone15,2",
            "--XyZ", "Content-Disposition: form-data; name=\"recording\"; filename=\"tone.wav\"",
            "Content-Type: audio/wav", "", "RIFF....WAVE",
            "--XyZ--", "",
        ])

        let form = try MultipartForm(contentType: "multipart/form-data; boundary=XyZ", body: body)

        #expect(form.parts.map(\.name) == ["csrf", "model", "recording"])
        #expect(form.fields.map(\.name) == ["csrf", "model"])
        #expect(form.fields.map(\.value) == ["token-123", "iPhone15,2"])
        let file = try #require(form["recording"])
        #expect(file.filename == "tone.wav")
        #expect(file.header("content-type") == "audio/wav")
        #expect(file.headers.count == 2)
        #expect(file.text == "RIFF....WAVE")
        #expect(form["csrf"]?.filename == nil)
    }

    @Test("a binary part keeps every byte: --, CR, LF, a near-boundary and all 256 values")
    func binaryPart() throws {
        let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
        var payload = Data("--\r\n\r\n--".utf8)
        payload += Data("\r\n--\(boundary.dropLast())".utf8)  // the delimiter but for its last byte
        payload += Data("\r\n-\(boundary)".utf8)  // one dash short
        payload += Data((0...255).map { UInt8($0) })
        payload += Data("\r\n\r".utf8)
        var body = Data("--\(boundary)\r\n".utf8)
        body += Data("Content-Disposition: form-data; name=\"log\"; filename=\"meter.csv\"\r\n".utf8)
        body += Data("Content-Type: application/octet-stream\r\n\r\n".utf8)
        body += payload
        body += Data("\r\n--\(boundary)--\r\n".utf8)

        let form = try MultipartForm(contentType: "multipart/form-data; boundary=\(boundary)", body: body)

        #expect(form.parts.count == 1)
        #expect(form["log"]?.body == payload)
        #expect(form["log"]?.filename == "meter.csv")
    }

    @Test("a quoted boundary with a space, parameters in any case, a file name holding ; and a quote")
    func quotedBoundary() throws {
        let body = Self.body([
            "--a b:c", "content-disposition: Form-Data; filename=\"x; \\\"y\\\".csv\"; NAME=log", "", "1,2",
            "--a b:c--",
        ])

        let form = try MultipartForm(
            contentType: "Multipart/Form-Data; charset=utf-8; Boundary=\"a b:c\"", body: body)

        #expect(form.parts.count == 1)
        #expect(form["log"]?.filename == "x; \"y\".csv")
        #expect(form["log"]?.text == "1,2")
    }

    @Test("a preamble, padding after a boundary, an empty file and an epilogue")
    func preambleAndEpilogue() throws {
        let body = Self.body([
            "This is a preamble.", "--b1  ", "Content-Disposition: form-data; name=\"recording\"; filename=\"\"",
            "Content-Type: application/octet-stream", "", "",
            "--b1", "Content-Disposition: form-data; name=\"empty\"", "", "",
            "--b1--", "an epilogue, ignored", "--b1",
        ])

        let form = try MultipartForm(contentType: "multipart/form-data; boundary=b1", body: body)

        #expect(form.parts.map(\.name) == ["recording", "empty"])
        #expect(form["recording"]?.filename == "")
        #expect(form["recording"]?.body.isEmpty == true)
        #expect(form["empty"]?.text == "")
    }

    @Test("no closing delimiter, or a body cut short, is refused")
    func missingClosingDelimiter() {
        let unclosed = Self.body(["--b", "Content-Disposition: form-data; name=\"a\"", "", "1", "--b"])
        let cut = Self.body(["--b", "Content-Disposition: form-data; name=\"a\"", "", "1 and the rest never came"])

        #expect(throws: MultipartForm.Failure.missingClosingDelimiter) {
            try MultipartForm(boundary: "b", body: unclosed)
        }
        #expect(throws: MultipartForm.Failure.missingClosingDelimiter) {
            try MultipartForm(boundary: "b", body: cut)
        }
    }

    @Test("a missing, empty or overlong boundary, or another media type, is refused")
    func boundaryRules() {
        let body = Self.body(["--b", "Content-Disposition: form-data; name=\"a\"", "", "1", "--b--"])
        #expect(throws: MultipartForm.Failure.missingBoundary) {
            try MultipartForm(contentType: "multipart/form-data", body: body)
        }
        #expect(throws: MultipartForm.Failure.invalidBoundary) {
            try MultipartForm(contentType: "multipart/form-data; boundary=\"\"", body: body)
        }
        #expect(throws: MultipartForm.Failure.invalidBoundary) {
            try MultipartForm(
                contentType: "multipart/form-data; boundary=\(String(repeating: "x", count: 71))", body: body)
        }
        #expect(throws: MultipartForm.Failure.notMultipart) {
            try MultipartForm(contentType: "application/x-www-form-urlencoded", body: body)
        }
        #expect(throws: MultipartForm.Failure.notMultipart) {
            try MultipartForm(contentType: nil, body: body)
        }
        #expect(throws: MultipartForm.Failure.missingOpeningDelimiter) {
            try MultipartForm(boundary: "other", body: body)
        }
    }

    @Test("more than 20 parts is refused; 20 are read")
    func tooManyParts() throws {
        func form(parts: Int) -> Data {
            Self.body(
                (0..<parts).flatMap { ["--b", "Content-Disposition: form-data; name=\"f\($0)\"", "", "\($0)"] } + [
                    "--b--"
                ])
        }

        #expect(try MultipartForm(boundary: "b", body: form(parts: 20)).parts.count == 20)
        #expect(throws: MultipartForm.Failure.tooManyParts(limit: 20)) {
            try MultipartForm(boundary: "b", body: form(parts: 21))
        }
    }

    @Test("a part without a name, without the blank line, or with junk after its boundary is refused")
    func malformedParts() {
        #expect(throws: MultipartForm.Failure.missingName(part: 1)) {
            try MultipartForm(boundary: "b", body: Self.body(["--b", "Content-Type: text/plain", "", "1", "--b--"]))
        }
        #expect(throws: MultipartForm.Failure.missingName(part: 2)) {
            try MultipartForm(
                boundary: "b",
                body: Self.body([
                    "--b", "Content-Disposition: form-data; name=a", "", "1", "--b",
                    "Content-Disposition: attachment; name=\"b\"", "", "2", "--b--",
                ]))
        }
        #expect(throws: MultipartForm.Failure.malformedHeaders(part: 1)) {
            try MultipartForm(
                boundary: "b", body: Self.body(["--b", "Content-Disposition: form-data; name=a", "--b--"]))
        }
        #expect(throws: MultipartForm.Failure.malformedHeaders(part: 1)) {
            try MultipartForm(boundary: "b", body: Self.body(["--b", "no colon here", "", "1", "--b--"]))
        }
        #expect(throws: MultipartForm.Failure.malformedDelimiter(part: 1)) {
            try MultipartForm(
                boundary: "b", body: Self.body(["--bx", "Content-Disposition: form-data; name=a", "", "1", "--b--"]))
        }
    }

    @Test("bare LF line endings are not multipart: the opening boundary is not followed by CRLF")
    func bareLineFeeds() {
        let body = Data("--b\nContent-Disposition: form-data; name=\"a\"\n\n1\n--b--\n".utf8)
        #expect(throws: MultipartForm.Failure.self) { try MultipartForm(boundary: "b", body: body) }
    }
}
