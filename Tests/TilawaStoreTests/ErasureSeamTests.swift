import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Erasure where it meets the other features (issue "seams that hold"): once erased, nothing
/// new is recorded for the student by any path, and their recordings leave every queue.
@Suite("Erasure is final where features meet: admission, replies, queues, the back office")
struct ErasureSeamTests {
    let policy = ProgramPolicy()

    /// S1001 with a recording awaiting a reply (encoded) and one still in its encode; S1002 with one awaiting.
    private func store(_ engine: TestEngine) throws -> (TestStore, awaiting: String, encoding: String, other: String) {
        let store = try TestStore(engine)
        let at = TestStore.newYork(2026, 9, 20)
        let awaiting = try #require(try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: policy).submission)
        let encoding = try #require(try store.database.admitSubmission(store.request("S1001", .week(2), at: at.addingTimeInterval(60)),
                                                                       policy: policy).submission)
        let other = try #require(try store.database.admitSubmission(store.request("S1002", .week(2), at: at), policy: policy).submission)
        try store.database.engine.write { db in
            try db.execute(sql: "UPDATE submission SET state = 'awaiting_feedback' WHERE id IN (?, ?)", arguments: [awaiting.id, other.id])
            try db.execute(sql: "UPDATE job SET state = 'done' WHERE subjectId IN (?, ?)", arguments: [awaiting.id, other.id])
        }
        return (store, awaiting.id, encoding.id, other.id)
    }

    private func erase(_ store: TestStore, at: Date) throws {
        let erased = try store.database.erase(studentId: "S1001", force: true, by: "ops", reason: "asked", now: at)
        guard case .success = erased else { Issue.record("not erased: \(erased)"); return }
    }

    @Test("nothing is admitted for an erased student (HTTP, ingest, capture and tus all admit here)", arguments: TestEngine.all)
    func noAdmission(engine: TestEngine) throws {
        let (store, _, _, _) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        try erase(store, at: at)
        let before = try store.database.engine.read { db in try SubmissionRecord.fetchCount(db) }
        let outcome = try store.database.admitSubmission(store.request("S1001", .week(3), at: at.addingTimeInterval(60)), policy: policy)
        #expect(outcome.refusal?.code == "unknown_student")
        #expect(try store.database.attemptStatus(studentId: "S1001", policy: policy, now: at) == nil)
        #expect(try store.database.engine.read { db in try SubmissionRecord.fetchCount(db) } == before)
        #expect(try store.database.admitSubmission(store.request("S1002", .week(3), at: at.addingTimeInterval(60)), policy: policy).submission != nil,
                "another student is not touched")
    }

    @Test("an erased student's recordings leave the coach's queue at once; their queued encodes are cancelled", arguments: TestEngine.all)
    func leavesQueues(engine: TestEngine) throws {
        let (store, awaiting, encoding, other) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        #expect(Set(try store.database.coachQueue(coachId: "C01", now: at).map(\.submission.id)) == [awaiting, other])
        try erase(store, at: at)
        #expect(try store.database.coachQueue(coachId: "C01", now: at).map(\.submission.id) == [other])
        #expect(try store.database.submission(id: awaiting)?.state == .withdrawn)
        #expect(try store.database.submission(id: encoding)?.state == .withdrawn)
        #expect(try store.database.submission(id: other)?.state == .awaitingFeedback)
        let jobs = try store.database.engine.read { db in
            try JobRecord.fetchAll(db, sql: "SELECT * FROM job WHERE subjectId = ?", arguments: [encoding])
        }
        #expect(jobs.map(\.state) == [.cancelled])
    }

    @Test("no reply is recorded for an erased student, by recording id or by slot", arguments: TestEngine.all)
    func noReply(engine: TestEngine) throws {
        let (store, awaiting, _, _) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        // A reply already given stays answerable a second time until the erasure.
        try store.database.engine.write { db in try db.execute(sql: "UPDATE submission SET state = 'feedback_ready' WHERE id = ?", arguments: [awaiting]) }
        guard case .success = try store.database.pairFeedback(.slot(student: "S1001", slot: .week(1)), coachId: "C01", now: at) else {
            Issue.record("before the erasure the slot pairs")
            return
        }
        try erase(store, at: at)
        #expect(try store.database.pairFeedback(.submission(awaiting), coachId: "C01", now: at) == .failure(.unknownSubmission(awaiting)))
        #expect(try store.database.pairFeedback(.slot(student: "S1001", slot: .week(1)), coachId: "C01", now: at) == .failure(.unknownStudent("S1001")))
    }

    @Test("back-office actions naming an erased student are refused (student_erased) and write nothing", arguments: TestEngine.all)
    func backOffice(engine: TestEngine) async throws {
        let (store, awaiting, _, other) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        try erase(store, at: at)
        func counts() throws -> [Int] {
            try store.database.engine.read { db in
                try ["audit", "event", "attemptGrant", "deadlineExtension", "enrolmentChange"].map {
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1
                }
            }
        }
        let before = try counts()
        let feedback = IdentifierGenerator.make("fb")
        try await store.database.engine.write { db in
            try FeedbackRecord(id: feedback, submissionId: other, coachId: "C01", receivedAt: at, notes: nil, analysis: TestStore.analysis,
                               originalPath: "originals/x.wav", origin: .http, result: nil).insert(db)
        }
        let actions: [BackOfficeAction] = [
            .extend(studentId: "S1001", slot: .week(4), dueAt: at.addingTimeInterval(7 * 86_400)),
            .grant(studentId: "S1001", count: 3, expiresAt: at.addingTimeInterval(86_400)),
            .changeEnrolment(studentId: "S1001", coachId: "C02", levelId: nil, state: nil),
            .moveFeedback(feedbackId: feedback, submissionId: awaiting),
        ]
        for action in actions {
            let result = try await store.database.apply(action, by: "ops", reason: "r", policy: policy, now: at.addingTimeInterval(60))
            #expect(result == .failure(.studentErased("S1001")), "\(action)")
        }
        #expect(try counts() == before)
    }

    /// A students.csv of one row placing `id` in L1 with C01 for fall-2026.
    private func row(id: String, name: String, subject: String) throws -> [StudentRow] {
        try StudentsCSV.parse("""
            student_id,name,level,coach_id,semester_id,subject
            \(id),\(name),L1,C01,fall-2026,\(subject)

            """, source: "students.csv")
    }

    /// Erases S1001, who signed in as `sub-1001`.
    private func eraseWithSubject(_ store: TestStore, at: Date) throws {
        try store.database.engine.write { db in try db.execute(sql: "UPDATE student SET subject = 'sub-1001' WHERE id = 'S1001'") }
        try erase(store, at: at)
    }

    @Test("a routine roster import skips a row naming an erased student, by id or by subject, and says so; the other rows import",
          arguments: TestEngine.all)
    func rosterImport(engine: TestEngine) throws {
        let (store, _, _, _) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        try eraseWithSubject(store, at: at)
        let rows = try StudentsCSV.parse("""
            student_id,name,level,coach_id,semester_id,gender,time_zone,subject
            S1001,Student S1001,L1,C01,fall-2026,female,Europe/London,
            S1002,Student S1002 again,L1,C01,fall-2026,,,
            S1003,A new student,L1,C01,fall-2026,,,
            S1004,The erased student under a new id,L1,C01,fall-2026,,,sub-1001

            """, source: "students.csv")
        let summary = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", now: at.addingTimeInterval(60))
        #expect(summary.skippedErased == [.init(id: "S1001", line: 2), .init(id: "S1004", line: 5, subjectOf: "S1001")])
        #expect(summary.readmitted.isEmpty)
        #expect(summary.students == 2)
        #expect(try store.database.student(id: "S1004") == nil)
        let ledger = try store.database.engine.read { db in try String.fetchAll(db, sql: "SELECT subjectDigest FROM erasure") }
        #expect(ledger.count == 1 && !ledger[0].contains("sub-1001"), "the ledger keeps a digest, never the subject")
        let erased = try #require(try store.database.student(id: "S1001"))
        #expect(erased.name == "" && erased.gender == nil && erased.timeZone == nil && erased.erasedAt != nil)
        #expect(try store.database.student(id: "S1002")?.name == "Student S1002 again")
        #expect(try store.database.student(id: "S1003") != nil)
    }

    @Test("--allow-erased re-admits an erased id as a new student: no history, the old records kept apart and still erased",
          arguments: TestEngine.all)
    func readmitSameID(engine: TestEngine) async throws {
        let (store, awaiting, encoding, _) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        try eraseWithSubject(store, at: at)
        let rows = try row(id: "S1001", name: "Back again", subject: "sub-1001")
        let later = at.addingTimeInterval(60)
        let summary = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", allowErased: ["S1001"], now: later)
        #expect(summary.skippedErased.isEmpty)
        #expect(summary.readmitted == [.init(id: "S1001", line: 2, erasedId: "S1001", formerRecords: "S1001-erased-1")])
        let student = try #require(try store.database.student(id: "S1001"))
        #expect(student.name == "Back again" && student.subject == "sub-1001" && student.erasedAt == nil)
        #expect(try store.database.student(id: "S1001-erased-1")?.erasedAt != nil)
        // The old recordings are the kept-apart erased student's; the new one starts with none.
        #expect(try await store.database.submission(id: awaiting)?.studentId == "S1001-erased-1")
        #expect(try await store.database.submission(id: encoding)?.studentId == "S1001-erased-1")
        #expect(try await store.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1001'")
        } == 0)
        #expect(try await store.database.isErased(studentId: "S1001") == false)
        // Tokens issued before the erasure (the erased person's) stay refused for whoever the id names now.
        let standing = try await store.database.tokenStanding(of: .student, id: "S1001")
        #expect(!standing.erased && (standing.tokensValidAfter ?? .distantPast) >= at.addingTimeInterval(-1), "\(standing)")
        #expect(try store.database.admitSubmission(store.request("S1001", .week(3), at: later), policy: policy).submission != nil,
                "the re-admitted student records")
        // The ledger still names both: a restore of a backup from before the erasure erases the old student again.
        #expect(Set(try store.database.erasures().keys) == ["S1001", "S1001-erased-1"])
        let audit = try await store.database.engine.read { db in
            try String.fetchAll(db, sql: "SELECT action FROM audit WHERE studentId = 'S1001' ORDER BY id")
        }
        #expect(audit.suffix(2) == ["student_erased", "student_readmitted"])
        // A second import of the same file (without the flag) changes nothing and skips nothing.
        let again = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", now: later)
        #expect(again.skippedErased.isEmpty && again.readmitted.isEmpty && again.students == 1)
        // Erased again and re-admitted again: the second set of old records goes apart too.
        try erase(store, at: later.addingTimeInterval(60))
        let third = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", allowErased: ["S1001"],
                                                    now: later.addingTimeInterval(120))
        #expect(third.readmitted.map(\.formerRecords) == ["S1001-erased-2"])
    }

    @Test("--allow-erased re-admits an erased student's subject under a new id; the erased records stay erased", arguments: TestEngine.all)
    func readmitSubject(engine: TestEngine) async throws {
        let (store, awaiting, _, _) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        try eraseWithSubject(store, at: at)
        let rows = try row(id: "S1004", name: "A returning student", subject: "sub-1001")
        let summary = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", allowErased: ["S1001"],
                                                      now: at.addingTimeInterval(60))
        #expect(summary.readmitted == [.init(id: "S1004", line: 2, erasedId: "S1001", formerRecords: nil)])
        #expect(try store.database.student(id: "S1004")?.subject == "sub-1001")
        #expect(try await store.database.isErased(studentId: "S1001"))
        #expect(try await store.database.submission(id: awaiting)?.studentId == "S1001")
        #expect(try store.database.admitSubmission(store.request("S1001", .week(3), at: at.addingTimeInterval(60)), policy: policy).refusal?.code
                == "unknown_student")
    }

    @Test("a row matching two erased students (its id, another's subject) is re-admitted only when both are allowed; else skipped, nothing moved",
          arguments: TestEngine.all)
    func readmitNeedsEveryMatch(engine: TestEngine) async throws {
        let (store, awaiting, _, _) = try store(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 27)
        try eraseWithSubject(store, at: at)
        guard case .success = try await store.database.erase(studentId: "S1002", force: true, by: "ops", reason: "asked", now: at) else {
            Issue.record("S1002 not erased")
            return
        }
        let rows = try row(id: "S1002", name: "Two at once", subject: "sub-1001")
        let half = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", allowErased: ["S1002"],
                                                   now: at.addingTimeInterval(60))
        #expect(half.skippedErased == [.init(id: "S1002", line: 2, subjectOf: "S1001")] && half.readmitted.isEmpty)
        #expect(try await store.database.isErased(studentId: "S1002"), "nothing re-admitted while one match is refused")
        #expect(try store.database.student(id: "S1002")?.erasedAt != nil)
        #expect(try await store.database.submission(id: awaiting)?.studentId == "S1001")
        let both = try store.database.importRoster(program: nil, students: rows, studentsSource: "students.csv", allowErased: ["S1001", "S1002"],
                                                   now: at.addingTimeInterval(120))
        #expect(both.readmitted.map(\.erasedId) == ["S1002", "S1001"])
        #expect(try store.database.student(id: "S1002")?.name == "Two at once")
    }
}
