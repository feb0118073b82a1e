import Foundation
import Testing
@testable import TilawaCore

@Suite("Instants as people read them: the zone named the way its own people write it")
struct HumanDateTests {
    // Saturday 13 March 2027, 04:59 UTC: Friday 23:59 in New York (EST, before the change on the 14th).
    let deadline = Date(timeIntervalSince1970: 1_804_913_940)

    @Test("New York, Jakarta, Dubai, London and Kolkata by their short names; a zone without one by its offset", arguments: [
        ("America/New_York", "Friday 12 March, 23:59 EST"),
        ("Asia/Jakarta", "Saturday 13 March, 11:59 WIB"),
        ("Asia/Dubai", "Saturday 13 March, 08:59 GST"),
        ("Europe/London", "Saturday 13 March, 04:59 GMT"),
        ("Asia/Kolkata", "Saturday 13 March, 10:29 IST"),
        ("Europe/Istanbul", "Saturday 13 March, 07:59 GMT+3"),
    ])
    func names(zone: String, expected: String) throws {
        #expect(HumanDate.format(deadline, in: try #require(TimeZone(identifier: zone))) == expected)
    }

    @Test("summer time has its own name")
    func summer() throws {
        let july = deadline.addingTimeInterval(120 * 86_400)
        #expect(HumanDate.format(july, in: try #require(TimeZone(identifier: "Europe/London"))).hasSuffix(" BST"))
        #expect(HumanDate.format(july, in: try #require(TimeZone(identifier: "America/New_York"))).hasSuffix(" EDT"))
    }
}
