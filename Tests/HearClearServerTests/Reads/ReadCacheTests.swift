import Foundation
import HearClearModel
import LoudnessCore
import Testing

@testable import HearClearServer

/// The read cache alone: its byte bound, least-recently-used eviction, invalidation and the rule
/// that an answer read before a change is not kept.
@Suite("Read cache")
struct ReadCacheTests {
    /// An answer whose JSON is `size` bytes (under the gzip threshold: one body only).
    static func answer(_ size: Int) throws -> EncodedAnswer {
        try EncodedAnswer(String(repeating: "x", count: size - 2))
    }

    static func listening(_ capacity: Int) -> ReadCache {
        let cache = ReadCache(capacityBytes: capacity)
        cache.setListening(true)
        return cache
    }

    @Test("it holds at most its capacity in bytes, dropping the least recently used down to 90 %")
    func byteBound() throws {
        let cache = Self.listening(1_000)
        for index in 0..<9 {
            cache.fill(.venue(externalID: "v\(index)"), try Self.answer(100), since: cache.ticket())
        }
        #expect(cache.size.bytes == 900)
        // v0 is used again: it is now more recent than v1…v8.
        #expect(cache.answer(.venue(externalID: "v0")) != nil)
        cache.fill(.venue(externalID: "v9"), try Self.answer(100), since: cache.ticket())
        #expect(cache.size.bytes == 1_000)
        // Over capacity: down to 900 bytes, the least recently used (v1, v2) first.
        cache.fill(.venue(externalID: "v10"), try Self.answer(100), since: cache.ticket())
        #expect(cache.size.bytes == 900)
        #expect(cache.answer(.venue(externalID: "v1")) == nil)
        #expect(cache.answer(.venue(externalID: "v2")) == nil)
        #expect(cache.answer(.venue(externalID: "v0")) != nil)
        #expect(cache.answer(.venue(externalID: "v10")) != nil)
    }

    @Test("an answer larger than the whole capacity is not kept; a capacity of 0 keeps nothing")
    func tooLarge() throws {
        let small = Self.listening(50)
        small.fill(.bands, try Self.answer(100), since: small.ticket())
        #expect(small.size.entries == 0)
        let none = Self.listening(0)
        none.fill(.bands, try Self.answer(10), since: none.ticket())
        #expect(none.answer(.bands) == nil)
    }

    @Test("a gzip'd form is kept beside the JSON and counted in the bytes")
    func gzipCounted() throws {
        let body = Array(repeating: ["level": 77.4], count: 200)
        let answer = try EncodedAnswer(body)
        let gzipped = try #require(answer.gzipped)
        #expect(answer.plain.readableBytes > 1_024)
        #expect(gzipped.readableBytes < answer.plain.readableBytes)
        #expect(answer.bytes == answer.plain.readableBytes + gzipped.readableBytes)
        #expect(answer.gzipETag == String(answer.eTag.dropLast()) + "-gzip\"")
    }

    @Test("a venue change drops that venue's grid and document only; a band change drops everything")
    func invalidation() throws {
        let cache = Self.listening(10_000)
        for key in [ReadCache.Key.grid(externalID: "a"), .venue(externalID: "a"), .grid(externalID: "b"), .bands] {
            cache.fill(key, try Self.answer(10), since: cache.ticket())
        }
        cache.invalidate(.venue(externalID: "a"))
        #expect(cache.answer(.grid(externalID: "a")) == nil)
        #expect(cache.answer(.venue(externalID: "a")) == nil)
        #expect(cache.answer(.grid(externalID: "b")) != nil)
        #expect(cache.answer(.bands) != nil)
        cache.invalidate(.bands)
        #expect(cache.size.entries == 0 && cache.size.bytes == 0)
    }

    @Test("an answer read before a change of its key is not kept; one read after it is")
    func readBeforeChangeIsNotKept() throws {
        let cache = Self.listening(10_000)
        let before = cache.ticket()
        cache.invalidate(.venue(externalID: "a"))
        cache.fill(.grid(externalID: "a"), try Self.answer(10), since: before)
        #expect(cache.answer(.grid(externalID: "a")) == nil)
        // Another venue's change does not spoil it.
        let other = cache.ticket()
        cache.invalidate(.venue(externalID: "z"))
        cache.fill(.grid(externalID: "a"), try Self.answer(10), since: other)
        #expect(cache.answer(.grid(externalID: "a")) != nil)
        // A band change spoils every read begun before it.
        let beforeBands = cache.ticket()
        cache.invalidate(.bands)
        cache.fill(.venue(externalID: "b"), try Self.answer(10), since: beforeBands)
        #expect(cache.answer(.venue(externalID: "b")) == nil)
    }

    @Test("not listening, it answers nothing and keeps nothing; listening again starts empty")
    func listening() throws {
        let cache = Self.listening(10_000)
        cache.fill(.bands, try Self.answer(10), since: cache.ticket())
        let ticket = cache.ticket()
        cache.setListening(false)
        #expect(cache.size.entries == 0)
        cache.fill(.bands, try Self.answer(10), since: cache.ticket())
        #expect(cache.answer(.bands) == nil)
        cache.setListening(true)
        cache.fill(.bands, try Self.answer(10), since: ticket)
        #expect(cache.answer(.bands) == nil, "read before the listener was lost")
        cache.fill(.bands, try Self.answer(10), since: cache.ticket())
        #expect(cache.answer(.bands) != nil)
    }

    @Test("the decoded bands are kept until a band change, and a read begun before it is not kept")
    func bandsMemo() throws {
        let cache = Self.listening(10_000)
        let before = cache.ticket()
        cache.keep(.standard, since: before)
        #expect(cache.bands == .standard)
        cache.invalidate(.venue(externalID: "a"))
        #expect(cache.bands == .standard, "a venue change leaves the bands")
        cache.invalidate(.bands)
        #expect(cache.bands == nil)
        cache.keep(.standard, since: before)
        #expect(cache.bands == nil, "read before the band change")
        cache.keep(.standard, since: cache.ticket())
        cache.setListening(false)
        #expect(cache.bands == nil)
    }

    @Test("read changes travel as their payloads")
    func payloads() {
        #expect(ReadChange.venue(externalID: "4b05:x").payload == "venue:4b05:x")
        #expect(ReadChange(payload: "venue:4b05:x") == .venue(externalID: "4b05:x"))
        #expect(ReadChange(payload: "bands") == .bands)
        #expect(ReadChange(payload: "cells") == nil)
    }
}
