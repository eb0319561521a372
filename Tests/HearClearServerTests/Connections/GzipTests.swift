import CompressNIO
import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

/// Compression over a real socket, through the application `serve` builds.
@Suite("gzip over the wire")
struct GzipTests {
    @Test("a gzip request body is accepted; a deflate one too")
    func compressedRequests() async throws {
        try await withLiveApp { client, database in
            var gzipBody = Fixture.bytes(Fixture.checkin())
            var deflateBody = Fixture.bytes(Fixture.checkin(device: "another-device-0001"))
            let gzip = try gzipBody.compress(with: .gzip())
            let deflate = try deflateBody.compress(with: .zlib())

            let first = try await client.execute(
                uri: "/api/v2/checkins", method: .post,
                headers: [.contentType: "application/json", .contentEncoding: "gzip"], body: gzip
            )
            let second = try await client.execute(
                uri: "/api/v2/checkins", method: .post,
                headers: [.contentType: "application/json", .contentEncoding: "deflate"], body: deflate
            )

            #expect(first.status == .created, "\(String(buffer: first.body))")
            #expect(second.status == .created, "\(String(buffer: second.body))")
            #expect(try await database.count("checkins") == 2)
        }
    }

    @Test(
        "the method is checked before the body: a TRACE, or a POST where only PUT goes, with a broken gzip body is a 405; an empty Content-Encoding is a 415"
    )
    func methodBeforeBody() async throws {
        try await withLiveApp { client, database in
            let empty = try await client.execute(
                uri: "/api/v2/checkins", method: .post,
                headers: [.contentType: "application/json", .contentEncoding: ""],
                body: Fixture.bytes(Fixture.checkin())
            )
            #expect(empty.status == .unsupportedMediaType, "\(String(buffer: empty.body))")
            #expect(String(buffer: empty.body).contains("Content-Encoding is empty"))
            // Last: the server answers without reading the body, then closes the connection.
            let trace = try await client.execute(
                uri: "/api/v2/checkins", method: .trace,
                headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: ByteBuffer(string: #"{"not": "gzip"}"#)
            )
            #expect(trace.status == .methodNotAllowed, "\(String(buffer: trace.body))")
            #expect(trace.headers[.allow]?.contains("POST") == true)
            #expect(try await database.count("checkins") == 0)
        }
        try await withLiveApp { client, _ in
            // POST to a path that only takes PUT: the same.
            let post = try await client.execute(
                uri: "/api/v2/venues/somewhere", method: .post,
                headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: ByteBuffer(string: #"{"not": "gzip"}"#)
            )
            #expect(post.status == .methodNotAllowed, "\(String(buffer: post.body))")
            #expect(post.headers[.allow]?.contains("PUT") == true)
        }
    }

    @Test("answers over 1 KiB are gzipped when asked, small ones and unasked ones are not")
    func compressedResponses() async throws {
        try await withLiveApp { client, _ in
            let big = try await client.execute(
                uri: "/api/v2/openapi.yaml", method: .get, headers: [.acceptEncoding: "gzip, deflate"]
            )
            let unasked = try await client.execute(uri: "/api/v2/openapi.yaml", method: .get)
            let refused = try await client.execute(
                uri: "/api/v2/openapi.yaml", method: .get, headers: [.acceptEncoding: "gzip;q=0, identity"]
            )
            let small = try await client.execute(uri: "/health", method: .get, headers: [.acceptEncoding: "gzip"])

            #expect(big.headers[.contentEncoding] == "gzip")
            var compressed = big.body
            let inflated = try compressed.decompress(with: .gzip())
            #expect(String(buffer: inflated) == String(buffer: unasked.body))
            #expect(big.body.readableBytes < unasked.body.readableBytes)
            #expect(unasked.headers[.contentEncoding] == nil)
            #expect(refused.headers[.contentEncoding] == nil)
            #expect(small.headers[.contentEncoding] == nil)
            #expect(big.headers[values: .vary].contains("Accept-Encoding"))
        }
    }

    @Test("over the socket: 1 MiB + 1 byte and a gzip bomb are 413, nothing is written")
    func limitsOverTheWire() async throws {
        try await withLiveApp { client, database in
            let oversized = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders,
                body: ByteBuffer(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
            )
            var zeros = ByteBuffer(repeating: UInt8(ascii: "0"), count: 256 << 20)
            let bomb = try zeros.compress(with: .gzip())
            let exploded = try await client.execute(
                uri: "/api/v2/checkins", method: .post,
                headers: [.contentType: "application/json", .contentEncoding: "gzip"], body: bomb
            )

            #expect(bomb.readableBytes < 1 << 20, "the bomb passes the wire limit")
            #expect(oversized.status == .contentTooLarge)
            #expect(exploded.status == .contentTooLarge)
            #expect(try await database.count("checkins") == 0)
        }
    }
}
