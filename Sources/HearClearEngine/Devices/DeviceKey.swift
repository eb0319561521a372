import Crypto
import Foundation
import HearClearModel
import Logging

/// The key device ids are kept under (docs/PRIVACY.md): a phone's id is stored, looked up, rate
/// limited and shown (shortened) as HMAC-SHA-256(key, id) in lower-case hex, never as sent. The
/// id is the phone's secret; the keyed form cannot be turned back into it, and without the key
/// nobody can tell which stored device a given id is.
public struct DeviceKey: Sendable {
    private let key: SymmetricKey
    /// The file the generated key is kept in, under the data directory.
    public static let fileName = "device-key"
    /// The shortest secret taken: 32 bytes, HMAC-SHA-256's output.
    public static let minimumLength = 32

    /// A key from `secret` (its UTF-8 bytes), at least ``minimumLength`` bytes.
    public init(secret: String) throws {
        let bytes = Array(secret.utf8)
        guard bytes.count >= Self.minimumLength else {
            throw ConfigurationError.invalid(
                "the device key must be at least \(Self.minimumLength) characters (HEARCLEAR_DEVICE_KEY or --device-key)"
            )
        }
        key = SymmetricKey(data: bytes)
    }

    /// The keyed form of a device id as a phone sends it: 64 lower-case hex digits.
    public func keyed(_ deviceID: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(deviceID.utf8), using: key)
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in mac {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The configured secret, else the one kept in `<dataDirectory>/device-key`, else a new one
    /// (32 random bytes, in hex) written there, readable by the owner only, and logged once.
    public static func resolve(secret: String?, dataDirectory: String, logger: Logger) throws -> DeviceKey {
        if let secret, !secret.isEmpty { return try DeviceKey(secret: secret) }
        let path = dataDirectory + "/" + fileName
        if let stored = DataDirectorySecret.read(path) { return try DeviceKey(secret: stored) }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
        try DataDirectorySecret.write(secret, to: path, in: dataDirectory, otherwise: "HEARCLEAR_DEVICE_KEY")
        logger.notice(
            "device key generated: device ids are kept under the key in this file; back it up with the database (lost, every phone becomes a new device)",
            metadata: ["path": "\(path)"])
        return try DeviceKey(secret: secret)
    }
}
