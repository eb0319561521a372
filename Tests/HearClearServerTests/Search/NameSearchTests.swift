import Foundation
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /api/v2/venues?q=…`: venues by the start of their name or of a word of it.
@Suite("Search by name: GET /api/v2/venues?q=")
struct NameSearchTests {
    static func put(_ client: some TestClientProtocol, _ id: String, _ name: String, latitude: Double = 51.5)
        async throws
    {
        let body: [String: Any] = ["name": name, "latitude": latitude, "longitude": -0.12, "timezone": "Europe/London"]
        let response = try await client.execute(
            uri: "/api/v2/venues/\(id)", method: .put, headers: Fixture.jsonHeaders, body: Fixture.bytes(body))
        #expect(response.status == .created)
    }

    static func names(_ body: JSONObject) -> [String] {
        ((body["results"] as? [JSONObject]) ?? []).compactMap { ($0["venue"] as? JSONObject)?["name"] as? String }
    }

    @Test("The start of the name or of a word, case-insensitive, by name; LIKE's wildcards are text")
    func byName() async throws {
        try await withRouterApp { client, _ in
            try await Self.put(client, "arms", "The King's Arms")
            try await Self.put(client, "park", "Arms Park")
            try await Self.put(client, "farms", "Farmstead")
            try await Self.put(client, "pct", "100% Bar")
            let response = try await client.execute(uri: "/api/v2/venues?q=ARMS", method: .get)
            #expect(response.status == .ok, "\(response.body.string)")
            let body = response.body.json
            #expect(Self.names(body) == ["Arms Park", "The King's Arms"])
            #expect(body["q"] as? String == "ARMS")
            #expect(body["near"] is NSNull)
            #expect(body["radius"] is NSNull)
            #expect(((body["results"] as? [JSONObject])?.first)?["distance"] as? Double == 0)
            #expect(body["next"] is NSNull)

            let wildcard = try await client.execute(uri: "/api/v2/venues?q=%25", method: .get)
            #expect(Self.names(wildcard.body.json) == [])
            let percent = try await client.execute(uri: "/api/v2/venues?q=100%25", method: .get)
            #expect(Self.names(percent.body.json) == ["100% Bar"])
            let middle = try await client.execute(uri: "/api/v2/venues?q=rms", method: .get)
            #expect(Self.names(middle.body.json) == [])
        }
    }

    @Test("Several words in any order, each the start of a word; case and accents folded")
    func words() async throws {
        try await withRouterApp { client, _ in
            try await Self.put(client, "qcc", "Quiet Corner Cafe")
            try await Self.put(client, "cq", "Café Quiet")
            try await Self.put(client, "qb", "Quiet Bar")
            try await Self.put(client, "ol", "Ölbar Zürich")
            func found(_ q: String, near: String = "") async throws -> [String] {
                let encoded = try #require(q.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let response = try await client.execute(uri: "/api/v2/venues?q=\(encoded)\(near)", method: .get)
                #expect(response.status == .ok, "\(q): \(response.body.string)")
                return Self.names(response.body.json)
            }
            #expect(try await found("quiet") == ["Café Quiet", "Quiet Bar", "Quiet Corner Cafe"])
            #expect(try await found("corner") == ["Quiet Corner Cafe"])
            #expect(try await found("quiet corn") == ["Quiet Corner Cafe"])
            #expect(try await found("Quiet Corner") == ["Quiet Corner Cafe"])
            #expect(try await found("quiet corner cafe") == ["Quiet Corner Cafe"])
            #expect(try await found("CORNER quiet") == ["Quiet Corner Cafe"])
            #expect(try await found("café") == ["Café Quiet", "Quiet Corner Cafe"])
            #expect(try await found("cafe qu") == ["Café Quiet", "Quiet Corner Cafe"])
            #expect(try await found("olbar zur") == ["Ölbar Zürich"])
            #expect(try await found("ÖLBAR") == ["Ölbar Zürich"])
            #expect(try await found("quiet pub") == [])
            #expect(try await found("uiet") == [])
            #expect(try await found("quiet corn", near: "&near=51.5,-0.12&radius=500") == ["Quiet Corner Cafe"])
        }
    }

    @Test("With near: only within the radius, nearest first; pages by cursor")
    func nearAndPages() async throws {
        try await withRouterApp { client, _ in
            try await Self.put(client, "t1", "Tap One", latitude: 51.503)
            try await Self.put(client, "t2", "Tap Two", latitude: 51.501)
            try await Self.put(client, "t3", "Tap Three", latitude: 51.502)
            try await Self.put(client, "far", "Tap Far", latitude: 52.5)
            let first = try await client.execute(
                uri: "/api/v2/venues?q=tap&near=51.5,-0.12&radius=5000&limit=2", method: .get)
            #expect(first.status == .ok, "\(first.body.string)")
            #expect(Self.names(first.body.json) == ["Tap Two", "Tap Three"])
            #expect((first.body.json["near"] as? JSONObject)?["latitude"] as? Double == 51.5)
            #expect(first.body.json["radius"] as? Double == 5000)
            let next = try #require(first.body.json["next"] as? String)
            let second = try await client.execute(uri: next, method: .get)
            #expect(second.status == .ok, "\(second.body.string)")
            #expect(Self.names(second.body.json) == ["Tap One"])
            #expect(second.body.json["next"] is NSNull)

            // By name alone, pages in name order.
            let byName = try await client.execute(uri: "/api/v2/venues?q=tap&limit=3", method: .get)
            #expect(Self.names(byName.body.json) == ["Tap Far", "Tap One", "Tap Three"])
            let rest = try await client.execute(uri: try #require(byName.body.json["next"] as? String), method: .get)
            #expect(Self.names(rest.body.json) == ["Tap Two"])
        }
    }

    @Test("422 for an empty or too long q, a level filter or sort=level with q, a bad near")
    func invalid() async throws {
        try await withRouterApp { client, _ in
            let long = String(repeating: "a", count: 101)
            for (query, pointer) in [
                ("q=", "q"), ("q=%20%20", "q"), ("q=\(long)", "q"), ("q=arms&label=quiet", "label"),
                ("q=arms&maxLevel=70", "maxLevel"), ("q=arms&sort=level", "sort"), ("q=arms&near=1000,2", "near"),
                ("q=a%20b%20c%20d%20e%20f%20g%20h%20i", "q"),
            ] {
                let response = try await client.execute(uri: "/api/v2/venues?\(query)", method: .get)
                #expect(response.status == .unprocessableContent, "\(query)")
                let errors = (response.body.json["errors"] as? [JSONObject]) ?? []
                #expect(errors.contains { $0["pointer"] as? String == pointer }, "\(query): \(response.body.string)")
            }
            let exactly100 = try await client.execute(
                uri: "/api/v2/venues?q=\(String(repeating: "a", count: 100))", method: .get)
            #expect(exactly100.status == .ok)
        }
    }
}
