import Foundation
import Testing
@testable import TilawaCore

@Suite("DeepLink")
struct DeepLinkTests {
    @Test("string forms round-trip", arguments: [
        (DeepLink.feedback(.week(8), id: id("F123")), "quranflow://weeks/8/feedback/F123"),
        (.submission(.week(12), id: id("sub_9")), "quranflow://weeks/12/submissions/sub_9"),
        (.week(.week(1)), "quranflow://weeks/1"),
        (.feedback(.eoc, id: id("F1")), "quranflow://weeks/eoc/feedback/F1"),
        (.week(.assessment), "quranflow://weeks/assessment"),
        (.coachQueue, "quranflow://coach/queue"),
        (.operationsStatus, "quranflow://ops/status"),
    ])
    func roundTrip(_ link: DeepLink, _ text: String) {
        #expect(link.absoluteString == text)
        #expect(DeepLink(text) == link)
        #expect(URL(string: text)?.scheme == "quranflow")
    }

    @Test("refuses other links", arguments: [
        "", "quranflow://", "quranflow://weeks", "quranflow://weeks/0", "quranflow://weeks/x",
        "https://weeks/8", "quranflow://weeks/8/feedback", "quranflow://weeks/8/feedback/",
        "quranflow://weeks/8/feedback/../x", "quranflow://weeks/8/other/x", "quranflow://weeks/8/feedback/F1/extra",
        "quranflow://students/8", "quranflow://coach", "quranflow://coach/queue/x", "quranflow://ops/status/", "quranflow://ops",
    ])
    func refuses(_ text: String) {
        #expect(DeepLink(text) == nil)
    }

    @Test("Codable as its string")
    func codable() throws {
        let link = DeepLink.feedback(.week(8), id: id("F1"))
        let data = try JSONEncoder().encode([link])
        #expect(String(decoding: data, as: UTF8.self) == #"["quranflow:\/\/weeks\/8\/feedback\/F1"]"#)
        #expect(try JSONDecoder().decode([DeepLink].self, from: data) == [link])
    }
}
