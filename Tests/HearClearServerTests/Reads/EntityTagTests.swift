import HearClearHTTP
import Testing

@Suite("Strong entity tags")
struct EntityTagTests {
    /// The expected digests are `sha256sum`'s (coreutils), independent of the server's hashing:
    /// `printf 'hello' | sha256sum` → 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824.
    @Test func theTagIsTheFirstHalfOfTheBodysSHA256InLowercaseHex() {
        #expect(EntityTag.strong(for: Array("hello".utf8)) == "\"2cf24dba5fb0a30e26e83b2ac5b9e29e\"")
        // `printf '' | sha256sum` → e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.
        #expect(EntityTag.strong(for: [UInt8]()) == "\"e3b0c44298fc1c149afbf4c8996fb924\"")
    }

    @Test func aGzippedTagMatchesItsPlainOne() {
        let tag = EntityTag.strong(for: Array("hello".utf8))
        #expect(EntityTag.match(tag, ifNoneMatch: EntityTag.gzipped(tag)) != nil)
        #expect(EntityTag.match(tag, ifNoneMatch: "\"e3b0c44298fc1c149afbf4c8996fb924\"") == nil)
    }
}
