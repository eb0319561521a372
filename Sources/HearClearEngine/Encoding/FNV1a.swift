/// The 64-bit FNV-1a hash of a string's UTF-8: stable across processes, instances and versions
/// (Swift's `Hasher` is seeded per process), for keys that must mean the same everywhere, such
/// as a search cursor's parameters or a simulated city's hidden cells. Not for secrets.
public enum FNV1a {
    /// The hash of `text`'s UTF-8 bytes.
    public static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
