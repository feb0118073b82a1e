import Foundation
import Testing
@testable import TilawaCore

@Suite("Identifier")
struct IdentifierTests {
    @Test("accepts [A-Za-z0-9_-]{1,64}", arguments: [
        "a", "Z", "0", "_", "-", "S1042", "student_01", "coach-7", "A-b_C-9",
        String(repeating: "x", count: 64),
    ])
    func accepts(_ text: String) throws {
        let identifier = try Identifier(validating: text)
        #expect(identifier.rawValue == text)
        #expect(Identifier.isValid(text))
    }

    @Test("refuses everything else", arguments: [
        "", String(repeating: "x", count: 65), "../x", "..", ".", "a/b", "a\\b", "a.b", "a b", " a", "a ",
        "a\n", "a\u{0}", "é", "e\u{301}", "Ａ", "١", "ß", "a:b", "a%2F", "🙂", "a\u{200B}",
    ])
    func refuses(_ text: String) {
        #expect(Identifier(rawValue: text) == nil)
        #expect(!Identifier.isValid(text))
        #expect(throws: RuleRefusal.invalidIdentifier(input: text)) {
            try Identifier(validating: text)
        }
    }

    @Test("64 characters is the limit, counted in bytes")
    func lengthLimit() {
        #expect(Identifier(rawValue: String(repeating: "a", count: 63) + "b") != nil)
        #expect(Identifier(rawValue: String(repeating: "a", count: 64) + "b") == nil)
        // 32 two-byte characters are 32 graphemes but would be 64 bytes; refused for being non-ASCII anyway.
        #expect(Identifier(rawValue: String(repeating: "é", count: 32)) == nil)
    }

    @Test("refusal code and message stay one line")
    func refusalMessage() {
        let refusal = RuleRefusal.invalidIdentifier(input: "a\nb")
        #expect(refusal.code == "invalid_identifier")
        #expect(!refusal.message(in: newYork).contains("\n"))
    }

    @Test("Codable validates on decode")
    func codable() throws {
        let encoded = try JSONEncoder().encode([id("S1042")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["S1042"]"#)
        #expect(try JSONDecoder().decode([Identifier].self, from: encoded) == [id("S1042")])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Identifier].self, from: Data(#"["../etc"]"#.utf8))
        }
    }

    @Test("orders by bytes")
    func ordering() {
        #expect(id("B") < id("a"))
        #expect(id("a1") < id("a2"))
    }
}
