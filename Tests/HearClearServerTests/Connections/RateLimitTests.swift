import Foundation
import HTTPTypes
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

@testable import HearClearServer

@Suite("Rate limits: the parts")
struct RateLimitPartsTests {
    @Test func limitsAreWrittenNOverAPeriod() {
        #expect(RateLimit("20/h") == RateLimit(count: 20, periodSeconds: 3_600))
        #expect(RateLimit(" 600/min ") == RateLimit(count: 600, periodSeconds: 60))
        #expect(RateLimit("5/s") == RateLimit(count: 5, periodSeconds: 1))
        #expect(RateLimit("0")?.isOff == true && RateLimit("off")?.isOff == true)
        for bad in ["", "20", "20/day", "-1/h", "x/h", "20/h/2"] { #expect(RateLimit(bad) == nil, "\(bad)") }
        #expect(RateLimit(count: 20, periodSeconds: 3_600).description == "20/h")
    }

    @Test func aBucketRefillsOneTokenAtATime() {
        // 3 per minute: three at once, then one each 20 s (by hand).
        let buckets = TokenBuckets()
        let limit = RateLimit(count: 3, periodSeconds: 60)
        #expect(buckets.take("a", limit: limit, now: 100) == nil)
        #expect(buckets.take("a", limit: limit, now: 100) == nil)
        #expect(buckets.take("a", limit: limit, now: 100) == nil)
        #expect(buckets.take("a", limit: limit, now: 100) == 20, "the next token in 20 s")
        #expect(buckets.take("a", limit: limit, now: 110) == 10, "10 s later, 10 s to go")
        #expect(buckets.take("b", limit: limit, now: 110) == nil, "another key has its own bucket")
        #expect(buckets.take("a", limit: limit, now: 120) == nil)
        #expect(buckets.take("a", limit: limit, now: 120) != nil)
        buckets.refund("a", limit: limit)
        #expect(buckets.take("a", limit: limit, now: 120) == nil, "a refunded token can be taken again")
        #expect(buckets.take("x", limit: .off, now: 0) == nil)
    }

    @Test func fullBucketsAreForgottenWhenThereAreMany() {
        let buckets = TokenBuckets(sweepAbove: 10)
        let limit = RateLimit(count: 2, periodSeconds: 1)
        for key in 0..<10 { _ = buckets.take("k\(key)", limit: limit, now: 0) }
        // A second later all ten are full again: the eleventh key sweeps them.
        _ = buckets.take("k10", limit: limit, now: 1)
        #expect(buckets.count == 1)
    }

    @Test func networksMatchAddresses() throws {
        let private10 = try #require(IPNetwork("10.0.0.0/8"))
        #expect(private10.contains("10.200.3.4") && !private10.contains("11.0.0.1"))
        #expect(private10.contains("::ffff:10.1.2.3"), "an IPv4-mapped IPv6 address")
        let v6 = try #require(IPNetwork("2001:db8::/32"))
        #expect(v6.contains("2001:db8:1::5") && !v6.contains("2001:db9::1") && !v6.contains("10.0.0.1"))
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("not-an-ip") == nil)
        #expect([IPNetwork].parse("10.0.0.0/8, ::1") != nil && [IPNetwork].parse("10.0.0.0/8,nope") == nil)
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        var configuration = RateLimitConfiguration()
        configuration.trustedProxies = try #require([IPNetwork].parse("10.0.0.0/8"))
        let limiter = RateLimiter(configuration)
        // Through two trusted proxies, the client is the last untrusted hop; what it wrote
        // before that (a forged 1.1.1.1) is not believed.
        #expect(
            limiter.clientAddress(peer: "10.0.0.2", forwardedFor: "1.1.1.1, 203.0.113.7, 10.0.0.9") == "203.0.113.7")
        #expect(limiter.clientAddress(peer: "198.51.100.1", forwardedFor: "203.0.113.7") == "198.51.100.1")
        #expect(limiter.clientAddress(peer: "10.0.0.2", forwardedFor: nil) == "10.0.0.2")
        #expect(limiter.clientAddress(peer: "10.0.0.2", forwardedFor: "garbage, 203.0.113.8") == "203.0.113.8")
        // Nothing is exempt by default, not even loopback; what is listed is.
        #expect(!limiter.isExempt("127.0.0.1") && !limiter.isExempt("::1") && !limiter.isExempt("203.0.113.7"))
        configuration.exempt = IPNetwork.loopback
        let exempting = RateLimiter(configuration)
        #expect(exempting.isExempt("127.0.0.1") && exempting.isExempt("::1") && !exempting.isExempt("203.0.113.7"))
    }
}

/// The limits over a real socket: the test client is 127.0.0.1, so loopback is not exempt here
/// and is the trusted proxy whose X-Forwarded-For names the clients. Every limit refills at most
/// a token in 30 minutes, so however slow the machine, no token comes back within a test.
@Suite("Rate limits over the wire")
struct RateLimitTests {
    func withLimitedApp(
        _ body: @Sendable @escaping (any TestClientProtocol, PostgresClient) async throws -> Void
    ) async throws {
        var configuration = testConfiguration()
        configuration.rateLimits.checkinsPerDevice = RateLimit(count: 2, periodSeconds: 3_600)
        configuration.rateLimits.checkinsPerAddress = RateLimit(count: 3, periodSeconds: 3_600)
        configuration.rateLimits.searchesPerAddress = RateLimit(count: 2, periodSeconds: 3_600)
        configuration.rateLimits.exempt = []
        configuration.rateLimits.trustedProxies = IPNetwork.loopback
        try await withTestDatabase { client, databaseConfiguration in
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: testLogger)
            try await app.boundedTest(.live) { testClient in try await body(testClient, client) }
        }
    }

    func post(_ client: any TestClientProtocol, device: String, from address: String, body: ByteBuffer? = nil)
        async throws -> TestResponse
    {
        try await client.execute(
            uri: "/api/v2/checkins", method: .post,
            headers: [.contentType: "application/json", .xForwardedFor: address],
            body: body ?? Fixture.bytes(Fixture.checkin(device: device)))
    }

    @Test("a device past its limit gets 429 with Retry-After; a resend costs nothing; another device goes on")
    func perDevice() async throws {
        try await withLimitedApp { client, database in
            // From a new address each time: only the device's limit is in play.
            let began = ContinuousClock.now
            let first = Fixture.bytes(Fixture.checkin(device: "phone-a"))
            #expect(try await post(client, device: "phone-a", from: "203.0.113.1", body: first).status == .created)
            // Sent again, the same bytes (a retry): a duplicate, its token given back.
            let resend = try await post(client, device: "phone-a", from: "203.0.113.2", body: first)
            #expect(resend.status == .ok, "\(resend.status) \(String(buffer: resend.body))")
            #expect(try await post(client, device: "phone-a", from: "203.0.113.3").status == .created)
            let refused = try await post(client, device: "phone-a", from: "203.0.113.4")
            #expect(refused.status == .tooManyRequests)
            let seconds = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            // A token every 30 min, the first taken when the test began: what is left of the 30
            // minutes, give or take the second Retry-After rounds to.
            let elapsed = (ContinuousClock.now - began).components.seconds
            #expect(seconds >= 1800 - Int(elapsed) - 1 && seconds <= 1800, "a token every 30 min")
            let problem = try JSONSerialization.jsonObject(with: Data(buffer: refused.body)) as? [String: Any]
            #expect(problem?["type"] as? String == "https://hearclear.app/problems/rate-limited")
            #expect(try await post(client, device: "phone-b", from: "203.0.113.5").status == .created)
            #expect(try await database.count("checkins") == 3)
        }
    }

    @Test("an address past its limit gets 429 whatever the device; v1 too; searches have their own")
    func perAddress() async throws {
        try await withLimitedApp { client, _ in
            for device in ["d1", "d2", "d3"] {
                #expect(try await post(client, device: device, from: "198.51.100.9").status == .created)
            }
            #expect(try await post(client, device: "d4", from: "198.51.100.9").status == .tooManyRequests)
            let legacy = try await client.execute(
                uri: "/api/v1/checkin/new", method: .post,
                headers: [.contentType: "application/json", .xForwardedFor: "198.51.100.9"],
                body: ByteBuffer(string: "{}"))
            #expect(legacy.status == .tooManyRequests)
            #expect(legacy.headers[.retryAfter] != nil)
            #expect(try await post(client, device: "d4", from: "198.51.100.10").status == .created)

            let search = "/api/v2/venues?near=51.5,-0.12"
            for _ in 0..<2 {
                let answer = try await client.execute(
                    uri: search, method: .get, headers: [.xForwardedFor: "198.51.100.9"])
                #expect(answer.status == .ok)
            }
            let third = try await client.execute(uri: search, method: .get, headers: [.xForwardedFor: "198.51.100.9"])
            #expect(third.status == .tooManyRequests)
        }
    }
    @Test("by default nothing is exempt: 60 check-ins of one device from loopback within seconds meet 429s")
    func loopbackLimitedByDefault() async throws {
        var configuration = testConfiguration()
        configuration.rateLimits = RateLimitConfiguration()
        #expect(configuration.rateLimits.exempt.isEmpty && configuration.rateLimits.trustedProxies.isEmpty)
        let perDevice = configuration.rateLimits.checkinsPerDevice
        #expect(perDevice == RateLimit(count: 20, periodSeconds: 3_600))
        try await withTestDatabase { database, databaseConfiguration in
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: testLogger)
            // Over a real socket from 127.0.0.1, without X-Forwarded-For.
            try await app.boundedTest(.live) { client in
                let began = ContinuousClock.now
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<60 {
                    let response = try await client.execute(
                        uri: "/api/v2/checkins", method: .post, headers: [.contentType: "application/json"],
                        body: Fixture.bytes(Fixture.checkin(device: "loopback-phone")))
                    statuses.append(response.status)
                }
                // A burst of 20, then a token every 3 minutes: however slow the machine, the
                // first 20 pass and no more than the tokens that came back meanwhile.
                let refilled = Int((ContinuousClock.now - began).components.seconds / 180)
                let created = statuses.filter { $0 == .created }.count
                #expect(statuses.prefix(20).allSatisfy { $0 == .created }, "\(statuses)")
                #expect(created <= 20 + refilled + 1)
                #expect(statuses.filter { $0 == .tooManyRequests }.count == 60 - created)
                #expect(try await database.count("checkins") == created)
            }
        }
    }
}
