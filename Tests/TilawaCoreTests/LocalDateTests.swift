import Foundation
import Testing
@testable import TilawaCore

@Suite("LocalDate")
struct LocalDateTests {
    @Test("parses YYYY-MM-DD")
    func parses() throws {
        let date = try #require(LocalDate("2026-01-10"))
        #expect(date == LocalDate(year: 2026, month: 1, day: 10))
        #expect(date.description == "2026-01-10")
    }

    @Test("refuses other shapes", arguments: [
        "", "2026-1-10", "2026-01-1", "26-01-10", "2026-13-01", "2026-00-10", "2026-01-00", "2026-01-32",
        "2026/01/10", "2026-01-10T00:00", " 2026-01-10", "２０２６-01-10", "+026-01-10", "2026--1-10",
    ])
    func refuses(_ text: String) {
        #expect(LocalDate(text) == nil)
    }

    @Test("Codable as a string")
    func codable() throws {
        let data = try JSONEncoder().encode([LocalDate(year: 2026, month: 9, day: 5)])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-09-05"]"#)
        #expect(try JSONDecoder().decode([LocalDate].self, from: data) == [LocalDate(year: 2026, month: 9, day: 5)])
    }
}
