import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

@testable import HearClearAdmin

/// Trust in the admin (issue 39) on the admin data set: venues' changes with their evidence and
/// dismissal, campaigns excluded or dismissed, what a check-in weighed, models' and devices'
/// offsets over time, devices' trust.
@Suite("Admin trust")
struct AdminTrustTests {
    /// Devices whose check-ins at the Arms in the days before the data set's were 8 dB quieter:
    /// 21, as a venue's level before a change is fitted from 20 or more (`VenueProfile`).
    static let earlierDevices = (0..<21).map { String(format: "f0f0f0f0-0000-4000-8000-%012d", $0) }

    static func key(_ device: String, _ database: PostgresClient) async throws -> Int64 {
        try #require(
            try await database.query("SELECT id FROM devices WHERE client_id = \(DeviceKey.tests.keyed(device))")
                .collect().first?.decode(Int64.self))
    }

    static func venueKey(_ externalID: String, _ database: PostgresClient) async throws -> Int64 {
        try #require(
            try await database.query("SELECT id FROM venues WHERE external_id = \(externalID)").collect().first?
                .decode(Int64.self))
    }

    /// The data set, a week of quieter check-ins before it at the Arms, and
    /// a change in force stored at the start of the data set's check-ins, 8 dB louder.
    static func changedArms(_ client: some TestClientProtocol, _ database: PostgresClient) async throws -> (
        AdminDataSet, [CheckinFixture], Date
    ) {
        let set = try await AdminDataSet.make(client, database)
        // Three a day over the 7 days before, at the data set's hour and the two before it.
        let earlier = earlierDevices.enumerated().map { index, device in
            CheckinFixture(
                venue: AdminDataSet.arms, device: device, levelDBFS: -46 + Double(index % 3) * 0.5,
                start: set.a.start.addingTimeInterval(-Double(1 + index / 3) * 86_400 - Double(index % 3) * 3600))
        }
        for checkin in earlier {
            let status = try await checkin.submit(to: client)
            guard status == .created else { throw AdminBrowserError("earlier check-in: \(status)") }
        }
        try await AdminDataSet.aggregate(database)
        let arms = try await venueKey(AdminDataSet.arms, database)
        let changedAt = set.a.start
        try await database.query(
            """
            DELETE FROM venue_changes WHERE venue_id = \(arms);
            """)
        try await database.query(
            """
            INSERT INTO venue_changes (venue_id, changed_at, detected_at, status, shift_db, shifts_db, checkins_since)
            VALUES (\(arms), \(changedAt), \(changedAt.addingTimeInterval(120)), 'in_force', 8,
                    array_fill(0::real, ARRAY[24]), 3)
            """)
        try await database.query("DELETE FROM aggregation_queue")
        return (set, earlier, changedAt)
    }

    // MARK: - Venue changes

    @Test("the venue page lists its change and charts the evidence before and after it")
    func venueChange() async throws {
        try await withRouterApp { client, database in
            let (_, _, changedAt) = try await Self.changedArms(client, database)
            var browser = try await AdminBrowser.signedIn(client)

            let page = try await browser.get("/farmer/venues/arms").body.string

            #expect(page.contains("Changes of level"))
            #expect(page.contains(AdminFormat.minute(changedAt)))
            #expect(page.contains("+8.0 dB"))
            #expect(page.contains("in force"))
            #expect(page.contains("Dismiss change"))
            #expect(page.contains("<circle class=\"ev-before\""), "check-ins before the change, as circles")
            #expect(page.contains("<rect class=\"ev-after\""), "check-ins since, as squares")
            #expect(page.contains("class=\"ev-change\""), "the change's time as a line")
            #expect(page.contains("Evidence as a table"))
            #expect(page.contains("since"))
            #expect(try await database.count("venue_changes", where: "status = 'in_force'") == 1, "nothing written")
            for device in Self.earlierDevices + AdminDataSet.allDevices {
                #expect(!page.contains(device), "no device id whole")
                #expect(!page.contains(DeviceKey.tests.keyed(device)), "no stored device id whole")
            }
        }
    }

    @Test("dismissing a change marks it, records who, audits it and queues the venue")
    func dismissChange() async throws {
        try await withRouterApp { client, database in
            _ = try await Self.changedArms(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let page = try await browser.get("/farmer/venues/arms").body.string
            let csrf = try #require(AdminBrowser.csrf(in: page))
            let action = try #require(
                page.range(of: #"/farmer/venues/arms/changes/[0-9]+/dismiss"#, options: .regularExpression).map {
                    String(page[$0])
                })

            let refused = try await browser.post(action, ["csrf": "wrong"])
            let refusedRows = try await database.count("venue_changes", where: "status = 'dismissed'")
            let dismissed = try await browser.post(action, ["csrf": csrf])
            let queued = try await database.count("aggregation_queue")
            let shown = try await browser.get(dismissed.headers[.location] ?? "/farmer/venues/arms").body.string
            let again = try await browser.post(action, ["csrf": csrf])

            #expect(refused.status == .forbidden)
            #expect(refusedRows == 0)
            #expect(dismissed.status == .seeOther)
            #expect(dismissed.headers[.location] == "/farmer/venues/arms?done=change-dismissed")
            #expect(
                try await database.count(
                    "venue_changes",
                    where:
                        "status = 'dismissed' AND dismissed_by = '\(AdminTestCredentials.user)' AND dismissed_at IS NOT NULL"
                ) == 1)
            #expect(queued == 1)
            #expect(try await database.count("admin_audit_log", where: "action = 'venue change dismissed'") == 1)
            #expect(shown.contains("Change dismissed."))
            #expect(shown.contains("dismissed by \(AdminTestCredentials.user)"))
            #expect(again.headers[.location] == "/farmer/venues/arms?done=change-unchanged")

            // The worker keeps the dismissal.
            try await AdminDataSet.aggregate(database)
            #expect(try await database.count("venue_changes", where: "status = 'dismissed'") == 1)
        }
    }

    @Test("the changes page lists changes across venues and is in the navigation")
    func changesPage() async throws {
        try await withRouterApp { client, database in
            _ = try await Self.changedArms(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let page = try await browser.get("/farmer/changes")
            let body = page.body.string
            #expect(page.status == .ok)
            #expect(body.contains(#"<a href="/farmer/changes" aria-current="page">Changes</a>"#))
            #expect(body.contains("The Arms"))
            #expect(body.contains("+8.0 dB"))
        }
    }

    @Test("a change's hours are listed when they did not move alike; an empty evidence draws no chart")
    func hourShifts() {
        var shifts = [Double](repeating: 0, count: 24)
        #expect(VenueChangeView.hourShifts(shifts) == nil)
        #expect(VenueChangeView.hourShifts([Double](repeating: 3, count: 24)) == nil, "uniform: the shift says it")
        shifts[22] = 6
        shifts[23] = 6.3
        #expect(VenueChangeView.hourShifts(shifts) == "22:00 +6.0, 23:00 +6.3")
        #expect(EvidenceChart(evidence: [], changedAt: nil) == nil)
    }

    // MARK: - Campaigns

    /// An open campaign at the Arms of device D (the outlier, louder).
    static func campaign(_ database: PostgresClient) async throws -> (id: Int64, device: Int64) {
        let arms = try await venueKey(AdminDataSet.arms, database)
        let device = try await key(AdminDataSet.deviceD, database)
        try await database.query("DELETE FROM venue_campaigns")
        let id = try #require(
            try await database.query(
                """
                INSERT INTO venue_campaigns (venue_id, direction, devices, checkins, deviation_db, moves_db, would_move_db)
                VALUES (\(arms), 'louder', \([device]), 1, 20, 0.4, 5.0) RETURNING id
                """
            ).collect().first?.decode(Int64.self))
        try await database.query("DELETE FROM aggregation_queue")
        return (id, device)
    }

    @Test("the campaigns page lists an open campaign with what it moves, and is in the navigation")
    func campaignsPage() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let (id, _) = try await Self.campaign(database)
            var browser = try await AdminBrowser.signedIn(client)
            let body = try await browser.get("/farmer/campaigns").body.string
            #expect(body.contains(#"<a href="/farmer/campaigns" aria-current="page">Campaigns</a>"#))
            #expect(body.contains("The Arms"))
            #expect(body.contains("louder"))
            #expect(body.contains("+20.0 dB"))
            #expect(body.contains("+0.4 dB"))
            #expect(body.contains("+5.0 dB"))
            #expect(body.contains("/farmer/campaigns/\(id)/exclude"))
            #expect(body.contains("/farmer/campaigns/\(id)/dismiss"))
            #expect(body.contains("None decided yet."))
        }
    }

    @Test("excluding a campaign excludes its devices, marks it, audits it and queues their venues")
    func excludeCampaign() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            let (id, device) = try await Self.campaign(database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/campaigns")

            let refused = try await browser.post("/farmer/campaigns/\(id)/exclude", ["csrf": "nope"])
            #expect(refused.status == .forbidden)
            #expect(try await database.count("devices", where: "excluded") == 0)

            let response = try await browser.post("/farmer/campaigns/\(id)/exclude", ["csrf": csrf])
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/farmer/campaigns?done=excluded")
            #expect(try await database.count("devices", where: "excluded AND id = \(device)") == 1)
            #expect(
                try await database.count(
                    "venue_campaigns",
                    where:
                        "id = \(id) AND status = 'excluded' AND decided_by = '\(AdminTestCredentials.user)' AND decided_at IS NOT NULL"
                ) == 1)
            #expect(try await database.count("aggregation_queue") >= 1)
            #expect(try await database.count("admin_audit_log", where: "action = 'campaign excluded'") == 1)

            try await AdminDataSet.aggregate(database)
            #expect(try await AdminActionsTests.status(set.outlier.id, database)?.1 == ["device_excluded"])
            let page = try await browser.get("/farmer/campaigns?done=excluded").body.string
            #expect(page.contains("Campaign excluded"))
            #expect(page.contains("excluded by \(AdminTestCredentials.user)"))
            let again = try await browser.post("/farmer/campaigns/\(id)/dismiss", ["csrf": csrf])
            #expect(again.headers[.location] == "/farmer/campaigns?done=unchanged")
        }
    }

    @Test("dismissing a campaign marks it, audits it and queues its venue; its devices stay in")
    func dismissCampaign() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let (id, _) = try await Self.campaign(database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/campaigns")

            let response = try await browser.post("/farmer/campaigns/\(id)/dismiss", ["csrf": csrf])

            #expect(response.headers[.location] == "/farmer/campaigns?done=dismissed")
            #expect(try await database.count("venue_campaigns", where: "id = \(id) AND status = 'dismissed'") == 1)
            #expect(try await database.count("devices", where: "excluded") == 0)
            #expect(try await database.count("aggregation_queue") == 1)
            #expect(try await database.count("admin_audit_log", where: "action = 'campaign dismissed'") == 1)
            let unknown = try await browser.post("/farmer/campaigns/999999/dismiss", ["csrf": csrf])
            #expect(unknown.status == .notFound)
        }
    }

    @Test("the trust pages and actions need a session")
    func signedOut() async throws {
        try await withRouterApp { client, _ in
            var browser = AdminBrowser(client)
            for page in ["/farmer/changes", "/farmer/campaigns"] {
                let response = try await browser.get(page)
                #expect(response.status == .seeOther, "GET \(page)")
                #expect(response.headers[.location]?.hasPrefix("/farmer?next=") == true, "GET \(page)")
            }
            for action in [
                "/farmer/campaigns/1/exclude", "/farmer/campaigns/1/dismiss", "/farmer/venues/arms/changes/1/dismiss",
            ] {
                let response = try await browser.post(action, ["csrf": "anything"])
                #expect(response.status == .seeOther, "POST \(action)")
                #expect(response.headers[.location] == "/farmer", "POST \(action)")
            }
        }
    }

    // MARK: - What a check-in weighed

    @Test("the check-in page says what it weighed: trust, recency, change, and the offset in force")
    func checkinWeight() async throws {
        try await withRouterApp { client, database in
            let (set, earlier, _) = try await Self.changedArms(client, database)
            var browser = try await AdminBrowser.signedIn(client)

            // A week before the latest, at the same hour.
            let old = try await browser.get(AdminDataSet.link(earlier[18])).body.string
            let recent = try await browser.get(AdminDataSet.link(set.a)).body.string

            #expect(old.contains("What it weighed"))
            #expect(old.contains("It weighs"))
            #expect(
                old.contains("Device trust: its device&#39;s trust is 0.10")
                    || old.contains("its device's trust is 0.10"))
            #expect(old.contains("with a half-life of 30 days it counts 0.85"), "2^(−7/30)")
            #expect(old.contains("brought forward by"))
            #expect(old.contains("it counts 0.50"))
            #expect(old.contains("Offset in force at its time: +0.00 dB"))
            #expect(recent.contains("it is among the venue"))
            #expect(recent.contains("no change of the venue"))
        }
    }

    // MARK: - Offsets over time, trust

    @Test("the models page shows a model's step, its OS versions' offsets and the devices that stepped")
    func modelsOverTime() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let device = try await Self.key(AdminDataSet.deviceA, database)
            let since = Date(timeIntervalSince1970: 1_780_000_000)
            let fit = try #require(
                try await database.query(
                    "INSERT INTO calibration_fits (cells, observations, iterations) VALUES (1, 1, 1) RETURNING id"
                ).collect().first?.decode(Int64.self))
            try await database.query(
                """
                INSERT INTO device_model_offsets (model, offset_db, source, since, earlier_offset_db)
                VALUES ('iPhone15,2', 1.5, 'crowd', \(since), -0.5)
                """)
            try await database.query(
                """
                INSERT INTO device_model_os_offsets (model, os, offset_db, checkins) VALUES ('iPhone15,2', 'iOS 18.1', 2.25, 40)
                """)
            try await database.query(
                """
                INSERT INTO device_offsets (device_id, offset_db, checkins, fit_id, since, earlier_offset_db, step_db,
                                            step_detected_at)
                VALUES (\(device), -3, 12, \(fit), \(since), 1, -4, \(since.addingTimeInterval(86_400)))
                """)
            var browser = try await AdminBrowser.signedIn(client)

            let page = try await browser.get("/farmer/models").body.string

            #expect(page.contains("since \(AdminFormat.minute(since)): +1.50 dB; before: −0.50 dB"))
            #expect(page.contains("<polyline class=\"offset-step\""))
            #expect(page.contains("iOS 18.1 +2.25 dB (40 check-ins)"))
            #expect(page.contains("Devices whose readings stepped"))
            #expect(page.contains(DeviceIdentity.shortened(DeviceKey.tests.keyed(AdminDataSet.deviceA))))
            #expect(page.contains("−4.0 dB"))
            #expect(page.contains(AdminFormat.minute(since.addingTimeInterval(86_400))))
            #expect(!page.contains(AdminDataSet.deviceA))
            #expect(!page.contains(DeviceKey.tests.keyed(AdminDataSet.deviceA)))
        }
    }

    @Test("the devices page shows each device's trust, the floor without a row")
    func deviceTrust() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let device = try await Self.key(AdminDataSet.deviceB, database)
            try await database.query(
                """
                INSERT INTO device_trust (device_id, trust, agreements, recent_disagreements, checkins, venues)
                VALUES (\(device), 0.73, 4, 0, 5, 2)
                """)
            var browser = try await AdminBrowser.signedIn(client)
            let page = try await browser.get("/farmer/devices").body.string
            #expect(page.contains("<th class=\"num\">Trust</th>"))
            #expect(page.contains("0.73"))
            #expect(page.contains("0.10<br><span class=\"detail\">floor</span>"))
        }
    }
}
