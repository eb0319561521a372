import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import NIOCore
import Testing

@testable import HearClearAdmin

/// The admin's check-in page draws a check-in's spectrogram and the labels of its windows; the
/// venue page shows each cell's sound character (docs/ARCHITECTURE.md, "Sound character").
@Suite("Admin pages: spectrogram and sound character")
struct AdminSoundCharacterTests {
    static func post(_ client: some TestClientProtocol, _ body: ByteBuffer) async throws {
        let response = try await client.execute(
            uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: body)
        guard response.status == .created else { throw AdminBrowserError("check-in: \(response.status)") }
    }

    @Test("a check-in with bands: spectrogram, removed seconds, windows and their rules, escaped")
    func checkinPage() async throws {
        try await withRouterApp { client, database in
            let start = SubmissionFixture.previousHourStart
            let bass = UUID()
            let quiet = UUID()
            try await Self.post(
                client,
                SoundCharacterAPITests.spectralCheckin(
                    venue: "club", device: "p1", level: -40, start: start, bass: true, bang: 20, id: bass))
            try await Self.post(
                client,
                SoundCharacterAPITests.spectralCheckin(
                    venue: "club", device: "p2", level: -75, start: start.addingTimeInterval(300), bass: false,
                    id: quiet))
            let plain = CheckinFixture(
                venue: "club", device: "p3", levelDBFS: -40, start: start.addingTimeInterval(600))
            try await plain.submit(to: client)
            try await AdminDataSet.aggregate(database)
            var browser = try await AdminBrowser.signedIn(client)

            let html = try await browser.get(AdminDataSet.link(bass)).body.string
            #expect(html.contains("<h2 id=\"spectrum\">Spectrum and sound character</h2>"))
            // Six bands, 40 columns each at most (runs of equal colour merged).
            let cells = html.components(separatedBy: "<rect class=\"sg sg").count - 1
            #expect(cells >= 6 && cells <= 240, "\(cells) cells")
            #expect(html.contains("<title>100 Hz, 0:00–"))
            #expect(html.contains(">125</text>") && html.contains(">1k</text>"), "octave centres on the axis")
            // The bang and the two seconds after it: one hatched column each reason.
            #expect(html.contains("<rect class=\"sg-removed\"") && html.contains("spike: 0:20"))
            // 37 kept seconds: windows of 10, 10, 10, 7, all bass-heavy.
            #expect(html.components(separatedBy: "<rect class=\"sc sc-bass_heavy_music\"").count - 1 == 4)
            #expect(html.contains("bass-heavy music (37 s)"))
            #expect(html.contains("6 third-octave bands, 100–2k Hz, Z-weighted"))
            #expect(html.contains("4 windows of the 37 kept seconds"))

            // A quiet check-in: its rule says "<", which must arrive escaped.
            let quietPage = try await browser.get(AdminDataSet.link(quiet)).body.string
            #expect(quietPage.contains("<rect class=\"sc sc-quiet\""))
            #expect(quietPage.contains("dBFS &lt; −60.0"))
            #expect(!quietPage.contains("dBFS < −60.0"))
            #expect(!quietPage.contains("<script"))

            let plainPage = try await browser.get(AdminDataSet.link(plain)).body.string
            #expect(plainPage.contains("id=\"seconds\"") && !plainPage.contains("id=\"spectrum\""))
        }
    }

    @Test("the venue page shows each cell's character in the heat map")
    func venuePage() async throws {
        try await withRouterApp { client, database in
            let start = SubmissionFixture.previousHourStart
            try await Self.post(
                client,
                SoundCharacterAPITests.spectralCheckin(
                    venue: "club", device: "p1", level: -40, start: start, bass: true))
            try await Self.post(
                client,
                SoundCharacterAPITests.spectralCheckin(
                    venue: "club", device: "p2", level: -44, start: start.addingTimeInterval(300), bass: false))
            try await AdminDataSet.aggregate(database)
            var browser = try await AdminBrowser.signedIn(client)

            let html = try await browser.get("/farmer/venues/club").body.string
            #expect(html.contains("1 cells have a sound character"))
            #expect(
                html.contains(
                    "<td>bass-heavy music 50 %, steady noise 50 %<br><span class=\"detail\">80 s of 2 check-ins</span></td>"
                ))
            #expect(html.contains("<td class=\"num\">7.5 dB</td>"), "median LC − LA")
            #expect(html.contains("<td>raised voices</td>"))
            #expect(html.contains("talking: raised voices (80 s of 2 check-ins)"), "in the square's title")
        }
    }
}
