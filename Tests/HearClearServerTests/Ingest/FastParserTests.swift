import Foundation
import HearClearModel
import HearClearServerTestSupport
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// The fast check-in reader must read exactly what JSONDecoder reads, and give up (so that
/// JSONDecoder words the error) on anything outside the plain shape.
@Suite("Fast check-in parser")
struct FastParserTests {
    static func both(_ text: String) -> (fast: CheckinRequest?, decoder: CheckinRequest?) {
        let data = Data(text.utf8)
        let fast = data.withUnsafeBytes { CheckinFastParser.parse($0) }
        return (fast, try? JSONDecoder().decode(CheckinRequest.self, from: data))
    }

    static func text(_ object: Any, pretty: Bool = false) -> String {
        String(
            decoding: try! JSONSerialization.data(withJSONObject: object, options: pretty ? [.prettyPrinted] : []),
            as: UTF8.self)
    }

    @Test(
        "reads what JSONDecoder reads",
        arguments: [
            text(Fixture.checkin(count: 40)),
            text(Fixture.checkin(count: 12), pretty: true),
            #"{"id":null,"venue":{"id":"v","name":"Café Zoë ☕","latitude":-3.5e1,"longitude":1.512093E2},"samples":[]}"#,
            #"{"extra":{"nested":[1,true,false,null,{"a":"b"}],"n":-0.5},"unit":"amplitude","samples":[{"t":"x","average":0.031,"peak":1e-3,"more":[]}]}"#,
            #" { "device" : { "id" : "d" , "model" : null } , "location" : { "latitude" : 0, "longitude" : -0.0, "accuracy" : 12.25 } } "#,
            #"{"samples":[{"average":123456789012345678,"peak":0.1234567890123456789}]}"#,
            "{}",
            #"{"venue":{"timezone":"Australia\/Sydney","name":"\"Quote\" \\ \u00e9\ud83c\udfb5\n"},"unknown":1}"#,
        ]
    )
    func agrees(_ body: String) throws {
        let (fast, decoder) = Self.both(body)
        #expect(decoder != nil)
        #expect(fast == decoder)
    }

    @Test(
        "gives up on what it does not read, leaving it to JSONDecoder",
        arguments: [
            #"{"id":"a\x"}"#,  // an invalid escape
            #"{"id":"\ud800"}"#,  // a lone surrogate
            #"{"unknown\/key":1}"#,  // an escaped key
            #"{"id":42}"#,  // a wrong type
            #"{"samples":[{"average":"NaN"}]}"#,
            #"{"samples":[{"average":01}]}"#,  // a leading zero: not JSON
            #"{"samples":[{"average":-}]}"#,
            #"{"id":"x"} trailing"#,
            #"{"id":"x","#,
            "[1,2,3]",
            "",
        ]
    )
    func givesUp(_ body: String) {
        #expect(Self.both(body).fast == nil)
    }
}
