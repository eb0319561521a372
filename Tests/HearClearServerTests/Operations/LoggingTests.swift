import Foundation
import HearClearModel
import HearClearServer
import Logging
import Synchronization
import Testing

@testable import HearClearEngine

@Suite("JSON logs")
struct LoggingTests {
    @Test("one JSON object a line with time, level, label, message and metadata")
    func jsonLine() throws {
        let lines = Mutex<[Data]>([])
        var handler = JSONLogHandler(label: "hearclear") { data in lines.withLock { $0.append(data) } }
        handler.logLevel = .info
        handler[metadataKey: "request"] = "abc"
        let logger = Logger(label: "hearclear") { _ in handler }

        logger.info("stored \"quoted\"\nline", metadata: ["venue": "4b05"])
        logger.debug("below the level")

        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false, "a newline in a message is escaped, not written")
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: String])
        #expect(object["level"] == "info")
        #expect(object["label"] == "hearclear")
        #expect(object["message"] == "stored \"quoted\"\nline")
        #expect(object["venue"] == "4b05")
        #expect(object["request"] == "abc")
        #expect(object["time"]?.hasSuffix("Z") == true)
    }
}
