import Foundation
import HearClearTestSupport
import Testing

@testable import HearClearPages

/// The pages' own number formatting and escaping, which replaced Foundation's formatter and the
/// template engine on the result pages (`HomeContent`).
@Suite("Page text: numbers as printf writes them, values escaped")
struct PageTextTests {
    @Test("fixed(_:decimals:) writes what String(format: \"%.Nf\") writes")
    func fixed() {
        var random = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0, 0.04, -0.04, 0.05, 9.95, 72.4, -33.86880, 151.2093, 1e6 + 0.25, -179.999995]
        for _ in 0..<5_000 { values.append(Double.random(in: -200...200, using: &random)) }
        for value in values {
            for decimals in [1, 5] {
                let printf = String(format: "%.\(decimals)f", value)
                let ours = PlainWords.fixed(value, decimals: decimals)
                // Printf rounds the exact binary value, which differs from ours only for a value
                // within 1e-6 of a half-way point.
                let halfway =
                    abs((abs(value) * pow(10, Double(decimals))).truncatingRemainder(dividingBy: 1) - 0.5) < 1e-6
                if !halfway {
                    #expect(ours == printf, "\(value) %.\(decimals)f")
                }
            }
        }
        #expect(PlainWords.decibels(72.44) == "72.4 dB")
        #expect(PlainWords.distance(1_250) == "1.3 km")
        #expect(PlainWords.hour(7) == "07:00")
        #expect(PlainWords.hour(21) == "21:00")
    }

    @Test("HTMLText escapes every value, character by character, and keeps the rest")
    func escaping() {
        let out = HTMLText()
        out.raw("<p title=\"").text("a\"b'c").raw("\">").text("<script>&amp; café 東京</script>").raw("</p>")
        #expect(out.html == "<p title=\"a&quot;b&#39;c\">&lt;script&gt;&amp;amp; café 東京&lt;/script&gt;</p>")
        #expect(HTMLText().text("").html == "")
    }

    /// Form values decode as Foundation's `removingPercentEncoding` decodes them after `+` → space
    /// (what the pages used before), on chosen and on random texts; the random ones are mostly
    /// valid escapes, so that the fast path, not the fallback to Foundation, is what is checked.
    @Test("a form value decodes as Foundation decodes it")
    func formDecoding() {
        func foundation(_ text: String) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        let chosen = [
            "", "plain", "quiet+corner", "caf%C3%A9", "Caf%c3%a9+Bar", "%", "%4", "%zz", "100%25", "%E6%9D%B1%E4%BA%AC",
            "%C3", "%FF%FE", "a%2Bb", "%20%20", "+%2B+",
        ]
        for text in chosen { #expect(FormBody.decode(Substring(text)) == foundation(text), "\(text)") }
        var random = SystemRandomNumberGenerator()
        let pieces = ["a", "b", "+", "%20", "%2B", "%25", "%C3%A9", "%E6%9D%B1", "%41", "%7e", "%", "%C3", "%zz", "0"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            #expect(FormBody.decode(Substring(text)) == foundation(text), "\(text)")
        }
    }

    /// The home page's layout is rendered once around its content; a `home.mustache` that does not
    /// place the content (a changed `--resources`) is refused at start, not served without results.
    @Test("the home page's frame: the layout around the content, or a refusal")
    func homeFrame() throws {
        let pages = TestCluster.repositoryRoot + "/Pages"
        let frame = try PagesController.homeFrame(try PagesRenderer(directory: pages), map: nil)
        let before = String(decoding: frame.before, as: UTF8.self)
        let after = String(decoding: frame.after, as: UTF8.self)
        #expect(before.hasPrefix("<!doctype html>"))
        #expect(before.hasSuffix("\n") && before.contains("<main id=\"main\">"))
        #expect(after.contains("</main>") && after.hasSuffix("</html>\n"))

        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: pages, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let home = try String(contentsOfFile: copy + "/home.mustache", encoding: .utf8)
        try home.replacingOccurrences(of: "{{{page}}}", with: "").write(
            toFile: copy + "/home.mustache", atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) {
            _ = try PagesController.homeFrame(try PagesRenderer(directory: copy), map: nil)
        }
    }
}
