import Foundation
import HTTPTypes
import HearClearModel
import HearClearServerTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

@testable import HearClearAdmin
@testable import HearClearEngine

@Suite("Admin actions change the cells")
struct AdminActionsTests {
    /// The Arms' one cell: (level dBFS, check-ins counted).
    static func armsCell(_ database: PostgresClient) async throws -> (level: Double, checkins: Int)? {
        let engine = Engine.testing(database)
        guard let venue = try await engine.venues.find(externalID: "arms") else { return nil }
        let cells = try await engine.loudness.cells(venueID: venue.id, bands: engine.loudness.currentBands())
        return cells.first.map { ($0.unroundedLevelDB - engine.loudness.referenceOffsetDB, $0.checkins) }
    }

    static func status(_ id: UUID, _ database: PostgresClient) async throws -> (String, [String])? {
        let checkin = try await Engine.testing(database).loudness.storedCheckin(id: id)
        return checkin.map { ($0.status.rawValue, $0.reasons.map(\.rawValue)) }
    }

    @Test("force-include an outlier: it counts and moves the cell; withdrawing restores the cell")
    func forceInclude() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let before = try #require(try await Self.armsCell(database))
            let page = AdminDataSet.link(set.outlier)
            let csrf = try await browser.csrf(on: page)

            let forced = try await browser.post(page + "/include", ["csrf": csrf, "note": "a band was playing"])
            let during = try #require(try await Self.armsCell(database))
            let shown = try await browser.get(forced.headers[.location] ?? page).body.string
            let withdrawn = try await browser.post(page + "/clear", ["csrf": csrf])
            let after = try #require(try await Self.armsCell(database))

            #expect(forced.status == .seeOther)
            #expect(forced.headers[.location] == page + "?done=include")
            #expect(before.checkins == 3)
            #expect(during.checkins == 4)
            // Huber (k = 1.345, pooled scale floored at 1 dB) of −38.5331, −38.0331, −37.5331 and
            // −18.0331: the far one adds only k, so μ = (−114.0993 + 1.345) / 3 = −37.5848.
            #expect(abs(during.level - -37.5848) < 0.001)
            #expect(shown.contains("Forced in. The venue was recomputed."))
            #expect(shown.contains("forced include by admin"))
            #expect(shown.contains("a band was playing"))
            #expect(shown.contains("Withdraw decision"))
            #expect(withdrawn.status == .seeOther)
            #expect(after.checkins == 3)
            #expect(abs(after.level - before.level) < 1e-4)
            #expect(try await Self.status(set.outlier.id, database)?.0 == "outlier")
            #expect(try await database.count("admin_audit_log", where: "action LIKE 'check-in %'") == 2)
        }
    }

    @Test("force-exclude a clean check-in: it leaves the cell until the decision is withdrawn")
    func forceExclude() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let page = AdminDataSet.link(set.b)
            let csrf = try await browser.csrf(on: page)

            _ = try await browser.post(page + "/exclude", ["csrf": csrf])
            let during = try #require(try await Self.armsCell(database))
            let judged = try await Self.status(set.b.id, database)
            _ = try await browser.post(page + "/clear", ["csrf": csrf])
            let after = try #require(try await Self.armsCell(database))

            #expect(judged?.0 == "excluded")
            #expect(judged?.1 == ["admin_excluded"])
            #expect(during.checkins == 2)
            // A and C left: −38.0331 and −38.5331, Huber of two = their mean.
            #expect(abs(during.level - -38.2831) < 0.001)
            #expect(after.checkins == 3)
            #expect(abs(after.level - -38.0331) < 0.001)
        }
    }

    @Test("a decision on an unknown check-in is 404")
    func unknownCheckin() async throws {
        try await withRouterApp { client, _ in
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf()
            let response = try await browser.post("/farmer/checkins/\(UUID().uuidString)/include", ["csrf": csrf])
            #expect(response.status == .notFound)
        }
    }

    @Test("excluding a device takes its check-ins out of every cell; including it restores them")
    func deviceExclusion() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let key = try #require(
                try await database.query(
                    "SELECT id FROM devices WHERE client_id = \(DeviceKey.tests.keyed(AdminDataSet.deviceA))"
                )
                .collect().first?.decode(Int64.self)
            )
            let csrf = try await browser.csrf(on: "/farmer/devices")

            let excluded = try await browser.post("/farmer/devices/\(key)/exclude", ["csrf": csrf, "note": "test"])
            try await AdminDataSet.aggregate(database)
            let during = try await Self.armsCell(database)
            let xssCells = try await database.count("loudness_cells")
            let list = try await browser.get("/farmer/devices?excluded=1").body.string
            _ = try await browser.post("/farmer/devices/\(key)/include", ["csrf": csrf])
            try await AdminDataSet.aggregate(database)
            let after = try await Self.armsCell(database)

            #expect(excluded.headers[.location] == "/farmer/devices?done=excluded")
            #expect(during?.checkins == 2, "B and C remain at the Arms")
            #expect(xssCells == 1, "the xss venue's only check-in was A's: only the Arms' cell is left")
            #expect(
                list.contains(DeviceKey.testShort(AdminDataSet.deviceA))
                    && !list.contains(DeviceKey.testShort(AdminDataSet.deviceB)), "the excluded filter")
            #expect(list.contains("Include"))
            #expect(after?.checkins == 3)
            #expect(try await database.count("loudness_cells") == 2)
        }
    }

    @Test("bands: a preview counts the cells that would change label; saving applies at once on v2")
    func bandEdit() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/bands")
            // Both cells are at 72.0 dB: "moderate" now, "loud" under these bands.
            let bands: [(String, String)] = [
                ("csrf", csrf), ("label", "quiet"), ("below", "65"), ("label", "moderate"), ("below", "70"),
                ("label", "loud"), ("below", "80"), ("label", "very loud"), ("below", ""), ("label", ""), ("below", ""),
            ]

            let preview = try await browser.post("/farmer/bands/preview", bands)
            let unchanged = try await Engine.testing(database).administration.bands.current()
            let saved = try await browser.post("/farmer/bands", bands)
            let grid = try await client.execute(uri: "/api/v2/venues/arms/loudness", method: .get).body.json
            let page = try await browser.get(saved.headers[.location] ?? "/farmer/bands").body.string

            #expect(preview.status == .ok)
            #expect(preview.body.string.contains("2 of 2 cells would change label."))
            #expect(preview.body.string.contains("moderate → loud: 2"))
            #expect(preview.body.string.contains("value=\"65\""), "the form keeps what was typed")
            #expect(unchanged.first?.belowDB == 70, "a preview saves nothing")
            #expect(saved.headers[.location] == "/farmer/bands?saved=1")
            let days = grid["days"] as? [JSONObject]
            let hour = (days?.first?["hours"] as? [JSONObject])?.first
            #expect(hour?["label"] as? String == "loud")
            #expect(page.contains("Bands saved. They apply now."))
            #expect(page.contains("65–70 dB"))
            let venue = try await browser.get("/farmer/venues/arms").body.string
            #expect(venue.contains("72.0 dB, loud"))
        }
    }

    @Test("bands that are not ordered, or leave a gap at the top, are refused and nothing is saved")
    func invalidBands() async throws {
        try await withRouterApp { client, database in
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/bands")

            let unordered = try await browser.post(
                "/farmer/bands",
                [
                    ("csrf", csrf), ("label", "quiet"), ("below", "75"), ("label", "loud"), ("below", "70"),
                    ("label", "very loud"), ("below", ""),
                ]
            )
            let bounded = try await browser.post(
                "/farmer/bands",
                [("csrf", csrf), ("label", "quiet"), ("below", "70"), ("label", "loud"), ("below", "80")]
            )
            let notANumber = try await browser.post(
                "/farmer/bands/preview",
                [("csrf", csrf), ("label", "quiet"), ("below", "seventy"), ("label", "loud"), ("below", "")]
            )

            #expect(unordered.status == .unprocessableContent)
            #expect(unordered.body.string.contains("Band 2 must have a higher bound than band 1."))
            #expect(bounded.status == .unprocessableContent)
            #expect(bounded.body.string.contains("The last band must have no upper bound."))
            #expect(notANumber.body.string.contains("“seventy” is not a level between 0 and 200 dB."))
            #expect(try await Engine.testing(database).administration.bands.current().count == 4)
        }
    }
}
