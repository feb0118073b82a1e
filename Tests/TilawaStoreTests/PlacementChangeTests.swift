import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore

/// Issue 26 item 7: no silent re-placement once an enrolment has weekly or EOC recordings.
@Suite("Placement once an enrolment has recordings")
struct PlacementChangeTests {
    let year = ProgrammeYearTests()
    let policy = ProgramPolicy(holidays: [])

    /// Events and enrolment changes of S1001, to show that a no-op writes nothing.
    func noise(_ store: TestStore) throws -> [Int] {
        try store.database.engine.read { db in
            [try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE studentId = 'S1001'") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM enrolmentChange") ?? -1]
        }
    }

    @Test("a different level or coach is already_placed naming the enrolment, the same one again changes nothing; withdrawn recordings do not count; another semester stays open")
    func placementRefused() async throws {
        let store = try ProgrammeYearTests.yearStore()
        defer { store.remove() }
        let at = ProgrammeYearTests.fall.unlock(week: 3).addingTimeInterval(3_600)
        // No recordings yet: placing again moves the level, as before.
        let moved = try await store.database.placeStudent("S1001", levelId: "L2", coachId: "C01", semesterId: "fall-2026", by: .ops, now: at)
        #expect(moved.success?.levelId == "L2")
        // A withdrawn recording is not the student's any more: still no recordings.
        let first = try #require(try store.database.admitSubmission(store.request("S1001", .week(3), at: at), policy: policy).submission)
        _ = try await store.database.withdrawSubmission(id: first.id, studentId: "S1001", windowMinutes: 10, now: at.addingTimeInterval(60))
        #expect(try await store.database.submission(id: first.id)?.state == .withdrawn)
        let back = try await store.database.placeStudent("S1001", levelId: "L1", coachId: "C01", semesterId: "fall-2026", by: .ops,
                                                         now: at.addingTimeInterval(120))
        #expect(back.success?.levelId == "L1")

        let second = try store.database.admitSubmission(store.request("S1001", .week(3), at: at.addingTimeInterval(3_600)), policy: policy)
        try year.encode(store, second, at: at.addingTimeInterval(3_660))
        let later = at.addingTimeInterval(7_200)
        let level = try await store.database.placeStudent("S1001", levelId: "L2", coachId: "C01", semesterId: "fall-2026", by: .ops, now: later)
        #expect(level.failure == .alreadyPlaced(student: "S1001", semester: "fall-2026", level: "L1", coach: "C01", recordings: 1))
        #expect(level.failure?.code == "already_placed")
        let message = try #require(level.failure?.message)
        #expect(message.contains("\"fall-2026\"") && message.contains("level \"L1\"") && message.contains("coach \"C01\""), "\(message)")
        let coach = try await store.database.placeStudent("S1001", levelId: "L1", coachId: "C02", semesterId: nil, by: .ops, now: later)
        #expect(coach.failure?.code == "already_placed")

        // The same placement again: the enrolment as it stands, no event, no audit row.
        let before = try noise(store)
        let standing = try await store.database.engine.read { db in
            try EnrolmentRecord.fetchOne(db, where: "studentId = ? AND semesterId = ?", ["S1001", "fall-2026"])
        }
        let same = try await store.database.placeStudent("S1001", levelId: "L1", coachId: "C01", semesterId: "fall-2026", by: .ops, now: later)
        #expect(same.success != nil && same.success == standing)
        #expect(try noise(store) == before)

        // Another semester is another enrolment.
        let spring = try await store.database.placeStudent("S1001", levelId: "L2", coachId: "C02", semesterId: "spring-2027", by: .ops, now: later)
        #expect(spring.success?.semesterId == "spring-2027" && spring.success?.levelId == "L2")
    }

    @Test("a roster row changing the level of an enrolment with recordings is already_placed naming its line and writes nothing; a coach change imports and is kept as history")
    func rosterLevelRefused() throws {
        let store = try ProgrammeYearTests.yearStore()
        defer { store.remove() }
        let at = ProgrammeYearTests.fall.unlock(week: 3).addingTimeInterval(3_600)
        try year.encode(store, try store.database.admitSubmission(store.request("S1001", .week(3), at: at), policy: policy),
                        at: at.addingTimeInterval(60))
        func row(_ line: Int, _ student: String, _ level: String, _ coach: String, _ semester: String = "fall-2026") -> StudentRow {
            StudentRow(line: line, id: Identifier(rawValue: student)!, name: "Student \(student)", level: level,
                       coachID: Identifier(rawValue: coach)!, semesterID: Identifier(rawValue: semester)!)
        }
        let later = at.addingTimeInterval(3_600)
        let history = { try store.database.engine.read { db in
            try String.fetchAll(db, sql: "SELECT change || ':' || COALESCE(levelId, '-') || ':' || COALESCE(coachId, '-') FROM enrolmentChange ORDER BY id")
        } }
        let before = try history()
        #expect {
            try store.database.importRoster(program: nil, students: [row(2, "S2001", "L1", "C01"), row(3, "S1001", "L2", "C02")],
                                            studentsSource: "s.csv", now: later)
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .alreadyPlaced && error.line == 3
                && error.message.hasPrefix("s.csv line 3: student S1001 in semester \"fall-2026\" is placed at level L1 with coach C01")
        }
        // Nothing of that import: not the new student of line 2, not the change.
        #expect(try store.database.engine.read { db in try StudentRecord.exists(db, key: "S2001") } == false)
        #expect(try history() == before)
        #expect(try store.database.engine.read { db in try String.fetchOne(db, sql: "SELECT levelId FROM enrolment WHERE studentId = 'S1001'") } == "L1")

        // The coach alone may change; the change is kept as history.
        _ = try store.database.importRoster(program: nil, students: [row(3, "S1001", "L1", "C02")], studentsSource: "s.csv", now: later)
        #expect(try history() == before + ["coach_changed:L1:C02"])
        // Another semester's row may name any level.
        _ = try store.database.importRoster(program: nil, students: [row(4, "S1001", "L2", "C02", "spring-2027")], studentsSource: "s.csv", now: later)
        #expect(try store.database.engine.read { db in
            try String.fetchOne(db, sql: "SELECT levelId FROM enrolment WHERE studentId = 'S1001' AND semesterId = 'spring-2027'")
        } == "L2")
    }
}
