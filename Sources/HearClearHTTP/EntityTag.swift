import Crypto
import Foundation
import Hummingbird

/// Strong entity tags over a response body, and `If-None-Match` (RFC 9110 §8.8.3, §13.1.2).
public enum EntityTag {
    /// `"<first 32 hex digits of SHA-256(body)>"`.
    public static func strong(for body: some DataProtocol) -> String {
        let digest = SHA256.hash(data: body)
        // Written by hand: `String(format:)` per byte cost more than the hash itself.
        var tag = [UInt8](repeating: UInt8(ascii: "\""), count: 34)
        for (position, byte) in digest.prefix(16).enumerated() {
            tag[1 + 2 * position] = hexDigits[Int(byte >> 4)]
            tag[2 + 2 * position] = hexDigits[Int(byte & 0x0f)]
        }
        return String(decoding: tag, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The tag in `If-None-Match` that matches `tag` (weak comparison, as the RFC asks for this
    /// header; a `-gzip` suffix added by the compression middleware is ignored), or `*`.
    public static func match(_ tag: String, ifNoneMatch header: String?) -> String? {
        guard let header else { return nil }
        let opaque = bare(tag)
        for candidate in header.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if candidate == "*" || bare(candidate) == opaque { return candidate }
        }
        return nil
    }

    /// The tag of the gzip'd representation of a strong tag's (RFC 9110 §8.8.3: a strong tag
    /// names one representation): `"x"` → `"x-gzip"`. ``match(_:ifNoneMatch:)`` undoes it.
    public static func gzipped(_ tag: String) -> String {
        String(tag.dropLast()) + "-gzip\""
    }

    private static func bare(_ tag: String) -> String {
        var value = Substring(tag)
        if value.hasPrefix("W/") { value = value.dropFirst(2) }
        if value.hasSuffix("-gzip\"") { value = value.dropLast(6) + "\"" }
        return String(value)
    }
}
