import Foundation
import Testing
@testable import TilawaCore

@Suite("Slot")
struct SlotTests {
    @Test("parses weeks and words", arguments: [
        ("1", Slot.week(1)), ("01", .week(1)), ("9", .week(9)), ("09", .week(9)), ("10", .week(10)),
        ("15", .week(15)), ("eoc", .eoc), ("EOC", .eoc), ("Eoc", .eoc),
        ("assessment", .assessment), ("ASSESSMENT", .assessment), ("Assessment", .assessment),
    ])
    func parses(_ text: String, _ expected: Slot) throws {
        #expect(try Slot(parsing: text) == expected)
    }

    @Test("refuses anything else with invalid_week", arguments: [
        "0", "00", "16", "99", "001", "015", "abc", "", " ", "1.5", "+3", "-1", " 3", "3 ", "3\n",
        "٣", "１", "w3", "eocs", "e oc", "1e1", "0x1", "assess", "week1",
    ])
    func refuses(_ text: String) {
        #expect(throws: RuleRefusal.invalidWeek(input: text, weekCount: 15)) {
            try Slot(parsing: text)
        }
    }

    @Test("the week range follows the configured count")
    func weekCount() throws {
        #expect(try Slot(parsing: "16", weekCount: 16) == .week(16))
        #expect(throws: RuleRefusal.invalidWeek(input: "13", weekCount: 12)) {
            try Slot(parsing: "13", weekCount: 12)
        }
        #expect(Slot.week(16).isValid(weekCount: 15) == false)
        #expect(Slot.week(0).isValid(weekCount: 15) == false)
        #expect(Slot.eoc.isValid(weekCount: 15))
    }

    @Test("kind, week and text form", arguments: [
        (Slot.week(8), SubmissionKind.week, Optional(8), "8"),
        (.eoc, .eoc, nil, "eoc"),
        (.assessment, .assessment, nil, "assessment"),
    ])
    func properties(_ slot: Slot, _ kind: SubmissionKind, _ number: Int?, _ text: String) throws {
        #expect(slot.kind == kind)
        #expect(slot.week == number)
        #expect(slot.description == text)
        #expect(try Slot(parsing: text) == slot)
    }

    @Test("invalid_week message names the range and stays one line")
    func message() {
        let refusal = RuleRefusal.invalidWeek(input: "16", weekCount: 15)
        #expect(refusal.code == "invalid_week")
        #expect(refusal.message(in: newYork) == #""16" is not a week: use a number from 1 to 15, "eoc" or "assessment"."#)
        let hostile = RuleRefusal.invalidWeek(input: "1\n2" + String(repeating: "x", count: 500), weekCount: 15)
        #expect(!hostile.message(in: newYork).contains("\n"))
        #expect(hostile.message(in: newYork).count < 200)
    }

    @Test("Codable as the text form")
    func codable() throws {
        let slots: [Slot] = [.week(8), .eoc, .assessment]
        let data = try JSONEncoder().encode(slots)
        #expect(String(decoding: data, as: UTF8.self) == #"["8","eoc","assessment"]"#)
        #expect(try JSONDecoder().decode([Slot].self, from: data) == slots)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Slot].self, from: Data(#"["0"]"#.utf8)) }
    }

    @Test("kinds and states use snake_case codes")
    func rawValues() {
        #expect(SubmissionKind.allCases.map(\.rawValue) == ["week", "eoc", "assessment"])
        #expect(SubmissionState.allCases.map(\.rawValue) == ["processing", "awaiting_feedback", "feedback_ready", "superseded", "failed", "withdrawn"])
        #expect(SubmissionState.allCases.filter(\.isSupersedable) == [.processing, .awaitingFeedback])
        #expect(SubmissionState.allCases.filter { !$0.countsAsAccepted } == [.failed, .withdrawn])
        #expect(SemesterPhase.allCases.map(\.rawValue) == ["pre_semester", "active", "eoc", "closed"])
    }
}
