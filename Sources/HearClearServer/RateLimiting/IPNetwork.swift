import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network, `10.0.0.0/8`, `::1/128`, or one address (`127.0.0.1`).
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    let address: [UInt8]
    let prefix: Int
    public let description: String

    public init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = Self.bytes(String(parts[0])) else { return nil }
        let prefix: Int
        if parts.count == 2 {
            guard let bits = Int(parts[1]), (0...address.count * 8).contains(bits) else { return nil }
            prefix = bits
        } else {
            prefix = address.count * 8
        }
        self.address = address
        self.prefix = prefix
        self.description = text
    }

    /// Loopback, IPv4 and IPv6.
    public static let loopback = [IPNetwork("127.0.0.0/8"), IPNetwork("::1")].compactMap { $0 }

    /// Whether `ip` (text) is in this network; false for text that is not an address.
    public func contains(_ ip: String) -> Bool {
        guard var bytes = Self.bytes(ip) else { return false }
        // An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address.
        if bytes.count == 16, address.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff,
            bytes[11] == 0xff
        {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == address.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address, bytes) {
            guard remaining > 0 else { return true }
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// The 4 or 16 bytes of an address in text; nil when it is not one.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

extension Array where Element == IPNetwork {
    /// Parses a comma-separated list; nil when an entry is not a network.
    public static func parse(_ text: String) -> [IPNetwork]? {
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let networks = entries.compactMap(IPNetwork.init)
        return networks.count == entries.count ? networks : nil
    }

    func contains(ip: String) -> Bool { contains { $0.contains(ip) } }
}
