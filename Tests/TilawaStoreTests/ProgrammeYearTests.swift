import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore

/// One student through a programme year at the store level: fall at L1 with C01, the
/// end-of-course assessment (opening week, retake, pass), then spring at L2 with C02.
@Suite("Programme year: enrolments, EOC, placement, failed recordings")
struct ProgrammeYearTests {
    /// Fall 2026 starts Saturday 5 September; spring 2027 Saturday 9 January (New York).
    static func yearStore() throws -> TestStore {
        let store = try TestStore(students: ["S1001"])
        try store.database.engine.write { db in
            try SemesterRecord(id: "spring-2027", name: "Spring 2027", startDate: "2027-01-09", timeZone: "America/New_York",
                               weekCount: 15, catchUpGraceDays: 14).insert(db)
            try LevelRecord(id: "L2", name: "Juz Amma", position: 1, eocTitle: "Juz Amma review", eocPassage: "Al-Bayyina 98:1-8")
                .insert(db)
            try db.execute(sql: "UPDATE level SET eocTitle = 'Foundations review', eocPassage = 'Al-Fatiha 1:1-7' WHERE id = 'L1'")
            for week in 1...15 {
                try CurriculumWeekRecord(levelId: "L2", week: week, title: "L2 title \(week)", passage: "L2 passage \(week)").insert(db)
            }
        }
        return store
    }

    static let fall = try! SemesterCalendar(start: LocalDate(year: 2026, month: 9, day: 5), timeZoneIdentifier: "America/New_York")
    static let spring = try! SemesterCalendar(start: LocalDate(year: 2027, month: 1, day: 9), timeZoneIdentifier: "America/New_York")

    let policy = ProgramPolicy(holidays: [LocalDate(year: 2026, month: 12, day: 25)])

    /// Encodes `submission` as the worker would (so it awaits feedback).
    func encode(_ store: TestStore, _ outcome: AdmissionOutcome, at: Date) throws {
        guard case let .admitted(submission, _, job) = outcome, let jobId = job.id else {
            Issue.record("not admitted: \(String(describing: outcome.refusal))")
            return
        }
        try store.database.completeSubmissionEncode(jobId: jobId, submissionId: submission.id, audioPath: "a/\(submission.id).opus",
                                                    audioBytes: 10, waveformPath: "w/\(submission.id).json", outputGainDB: 0, now: at)
    }

    /// A coach's reply, recorded and encoded.
    @discardableResult
    func reply(_ store: TestStore, coach: String, target: FeedbackTarget, result: EOCResult? = nil, at: Date) throws
        -> Result<FeedbackRecord, FeedbackRefusal> {
        let id = IdentifierGenerator.make("fb", now: at)
        let request = FeedbackRequest(feedbackId: id, coachId: coach, receivedAt: at, notes: nil, analysis: TestStore.analysis,
                                      originalPath: "originals/\(id).m4a", origin: .cli, result: result)
        switch try store.database.recordFeedback(request, target: target) {
        case let .failure(refusal): return .failure(refusal)
        case let .success((feedback, job)):
            try store.database.completeFeedbackEncode(jobId: try #require(job.id), feedbackId: feedback.id, audioPath: "a/\(id).opus",
                                                      audioBytes: 10, waveformPath: "w/\(id).json", outputGainDB: 0, now: at)
            return .success(feedback)
        }
    }

    func events(_ store: TestStore, _ type: String) throws -> [EventPayload] {
        try store.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "type = ?", [type], orderBy: "seq")
        }.map { try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload) }
    }

    @Test("fall: EOC opens in week 14 (not 12), retake, second recording, pass, graduated; spring starts empty and never touches fall")
    func year() async throws {
        let store = try Self.yearStore()
        defer { store.remove() }
        // Thirteen weeks in fall, each the day after it unlocks (one attempt a week).
        var fallWeek3 = ""
        for week in 1...13 {
            let at = Self.fall.unlock(week: week).addingTimeInterval(86_400 + 3_600)
            let outcome = try store.database.admitSubmission(store.request("S1001", .week(week), at: at), policy: policy)
            if week == 3 { fallWeek3 = try #require(outcome.submission).id }
            try encode(store, outcome, at: at.addingTimeInterval(60))
        }
        // Week 3 answered in fall by C01.
        #expect(try reply(store, coach: "C01", target: .slot(student: "S1001", slot: .week(3)), at: Self.fall.unlock(week: 4)).isSuccess)

        // Week 13: twelve (thirteen) weeks are in, but the assessment opens in week 14.
        let week13 = Self.fall.unlock(week: 13).addingTimeInterval(3 * 86_400)
        let early = try store.database.admitSubmission(store.request("S1001", .eoc, at: week13), policy: policy)
        #expect(early.refusal == .eocNotEligible(have: 13, need: 12, opensAt: Self.fall.unlock(week: 14)))
        #expect(try await store.database.recordEOCAvailable(policy: policy, now: week13) == 0)

        // Week 14 opens it: announced once, however often the sweep runs.
        let week14 = Self.fall.unlock(week: 14).addingTimeInterval(60)
        #expect(try await store.database.recordEOCAvailable(policy: policy, now: week14) == 1)
        #expect(try await store.database.recordEOCAvailable(policy: policy, now: week14.addingTimeInterval(60)) == 0)
        #expect(try events(store, "eoc_available").count == 1)
        var timeline = try await #require(try store.database.timeline(studentId: "S1001", policy: policy, now: week14))
        #expect(timeline.rules.eocStatus(history: timeline.history, now: week14).state == .available)
        #expect(timeline.rules.phase(at: week14) == .eoc)

        // First EOC recording (Monday 14 December 2026), under review; another is refused.
        let firstEOCAt = TestStore.newYork(2026, 12, 14, 10)
        let firstEOC = try store.database.admitSubmission(store.request("S1001", .eoc, at: firstEOCAt), policy: policy)
        let firstEOCId = try #require(firstEOC.submission).id
        try encode(store, firstEOC, at: firstEOCAt.addingTimeInterval(60))
        #expect(try store.database.admitSubmission(store.request("S1001", .eoc, at: firstEOCAt.addingTimeInterval(3_600)), policy: policy)
            .refusal == .eocUnderReview)

        // A plain reply without the result is refused; with `retake`, one more recording is allowed.
        let missing = try reply(store, coach: "C01", target: .submission(firstEOCId), at: firstEOCAt.addingTimeInterval(86_400))
        #expect(missing.failureCode == "eoc_result_missing")
        #expect(try reply(store, coach: "C01", target: .submission(firstEOCId), result: .retake,
                          at: firstEOCAt.addingTimeInterval(86_400)).isSuccess)
        timeline = try await #require(try store.database.timeline(studentId: "S1001", policy: policy, now: firstEOCAt.addingTimeInterval(2 * 86_400)))
        #expect(timeline.rules.eocStatus(history: timeline.history, now: firstEOCAt.addingTimeInterval(2 * 86_400)).state == .retake)

        // Second recording Thursday 24 December: results due five business days later,
        // skipping the weekend and the Christmas holiday: Friday 1 January 2027, same time.
        let secondEOCAt = TestStore.newYork(2026, 12, 24, 15)
        let secondEOC = try store.database.admitSubmission(store.request("S1001", .eoc, at: secondEOCAt), policy: policy)
        let second = try #require(secondEOC.submission)
        #expect(second.feedbackDueAt == TestStore.newYork(2027, 1, 1, 15))
        try encode(store, secondEOC, at: secondEOCAt.addingTimeInterval(60))
        // The overdue check uses that instant, not 48 hours (the weekly recordings left unanswered are overdue).
        try await store.database.recordOverdueFeedback(now: secondEOCAt.addingTimeInterval(3 * 86_400), policy: policy)
        #expect(try await store.database.submission(id: second.id)?.overdueNotifiedAt == nil)
        #expect(try reply(store, coach: "C01", target: .slot(student: "S1001", slot: .eoc), result: .pass,
                          at: TestStore.newYork(2026, 12, 28)).isSuccess)
        let fallEnrolment = try await #require(try store.database.engine.read { db in
            try StudentContext.enrolment(db, studentId: "S1001", semesterId: "fall-2026")
        })
        #expect(fallEnrolment.outcome == .graduated)
        let results = try events(store, "eoc_results_ready")
        #expect(results.map(\.extra?.result) == [.retake, .pass])
        #expect(results.last?.message.contains("graduated Foundations") == true)
        #expect(try store.database.admitSubmission(store.request("S1001", .eoc, at: TestStore.newYork(2026, 12, 29)), policy: policy)
            .refusal == .eocPassed)
        #expect(try await store.database.statusFacts(now: TestStore.newYork(2026, 12, 29), feedbackDue: 48 * 3_600).graduated == 1)

        // Spring at the next level with another coach: a new enrolment, fall untouched.
        let importAt = TestStore.newYork(2027, 1, 4)
        let row = StudentRow(line: 2, id: Identifier(rawValue: "S1001")!, name: "Student S1001", level: "L2",
                             coachID: Identifier(rawValue: "C02")!, semesterID: Identifier(rawValue: "spring-2027")!)
        _ = try store.database.importRoster(program: nil, students: [row], studentsSource: "students.csv", now: importAt)
        let enrolled = try events(store, "enrolled")
        #expect(enrolled.count == 1)
        #expect(enrolled.first?.message.contains("Juz Amma") == true && enrolled.first?.message.contains("Saturday 9 January, 00:00 EST") == true)
        #expect(try await store.database.engine.read { db in
            try StudentContext.enrolment(db, studentId: "S1001", semesterId: "fall-2026")
        } == fallEnrolment)

        let springWeek1 = Self.spring.unlock(week: 1).addingTimeInterval(3_600)
        let spring = try await #require(try store.database.timeline(studentId: "S1001", policy: policy, now: springWeek1))
        #expect(spring.semester.id == "spring-2027" && spring.level?.id == "L2" && spring.enrolment.coachId == "C02")
        #expect(spring.submissions.isEmpty && spring.history.isEmpty)
        #expect(spring.rules.behindCount(history: spring.history, now: springWeek1) == 0)
        #expect(spring.rules.eocStatus(history: spring.history, now: springWeek1).state == .locked)
        #expect(spring.enrolments.map(\.semester.id) == ["fall-2026", "spring-2027"])
        // Fall's history is still there when asked for.
        let fallView = try await #require(try store.database.timeline(studentId: "S1001", semesterId: "fall-2026", policy: policy, now: springWeek1))
        #expect(fallView.submissions.count == 15)

        // Spring's week 3: a reply by name pairs with spring's, never fall's; fall's week 3 by id.
        let springWeek3At = Self.spring.unlock(week: 3).addingTimeInterval(3_600)
        let springWeek3 = try store.database.admitSubmission(store.request("S1001", .week(3), at: springWeek3At), policy: policy)
        let springWeek3Id = try #require(springWeek3.submission).id
        try encode(store, springWeek3, at: springWeek3At.addingTimeInterval(60))
        #expect(try await store.database.pairFeedback(.slot(student: "S1001", slot: .week(3)), coachId: "C02", now: Date()).submissionId == springWeek3Id)
        #expect(try await store.database.pairFeedback(.slot(student: "S1001", slot: .week(3)), coachId: "C01", now: Date()).failureCode == "not_assigned_coach")
        #expect(try await store.database.pairFeedback(.submission(fallWeek3), coachId: "C01", now: Date()).submissionId == fallWeek3)
        #expect(try await store.database.pairFeedback(.submission(fallWeek3), coachId: "C02", now: Date()).failureCode == "not_assigned_coach")
        // Queues are per enrolment: C02 sees spring's week 3 only.
        #expect(try await store.database.coachQueue(coachId: "C02", now: Date()).map(\.submission.id) == [springWeek3Id])
        #expect(!(try await store.database.coachQueue(coachId: "C01", now: Date()).map(\.submission.id).contains(springWeek3Id)))
        // Every event of the year says its sentence as a key and parameters too.
        let keys = try store.expectMessagesRenderFromKeys()
        #expect(keys.isSuperset(of: ["submission_received.week", "submission_received.eoc", "feedback_ready", "eoc_results_ready.retake",
                                     "eoc_results_ready.pass", "submission_ready_for_review"]), "\(keys.sorted())")
    }

    @Test("attempts are the student's across semesters")
    func attemptsAcrossSemesters() throws {
        let store = try Self.yearStore()
        defer { store.remove() }
        let row = StudentRow(line: 2, id: Identifier(rawValue: "S1001")!, name: "S", level: "L2", coachID: Identifier(rawValue: "C02")!,
                             semesterID: Identifier(rawValue: "spring-2027")!)
        _ = try store.database.importRoster(program: nil, students: [row], studentsSource: "students.csv", now: TestStore.newYork(2026, 12, 1))
        // Fall closes on 2 January and spring opens on the 9th, so a 14-day window shows it:
        // two fall catch-ups on Thursday 31 December, then spring's week 1 on Saturday 9 January.
        let policy = ProgramPolicy(attemptWindow: try AttemptWindow(limit: 2, length: 14 * 86_400))
        let thursday = TestStore.newYork(2026, 12, 31, 10)
        #expect(try store.database.admitSubmission(store.request("S1001", .week(1), at: thursday), policy: policy).submission != nil)
        #expect(try store.database.admitSubmission(store.request("S1001", .week(2), at: thursday.addingTimeInterval(60)), policy: policy)
            .submission != nil)
        let saturday = TestStore.newYork(2027, 1, 9, 10)
        #expect(try store.database.admitSubmission(store.request("S1001", .week(1), at: saturday), policy: policy).refusal?.code
            == "attempt_limit")
    }

    @Test("an unplaced student: assessment any time (also after the semester closed), weekly refused not_placed, placed by a placing coach")
    func placement() async throws {
        let store = try Self.yearStore()
        defer { store.remove() }
        try await store.database.engine.write { db in
            try db.execute(sql: "UPDATE coach SET placing = 1 WHERE id = 'C02'")
            try StudentRecord(id: "S2001", name: "New Student").insert(db)
        }
        let row = StudentRow(line: 2, id: Identifier(rawValue: "S2001")!, name: "New Student", level: nil, coachID: nil,
                             semesterID: Identifier(rawValue: "fall-2026")!)
        _ = try store.database.importRoster(program: nil, students: [row], studentsSource: "students.csv", now: TestStore.newYork(2026, 9, 1))
        #expect(try events(store, "enrolled").isEmpty, "a pending enrolment is no welcome yet")

        // Fall closed on 2 January 2027 at 00:00; the assessment is still accepted, with no attempt used.
        let after = TestStore.newYork(2027, 1, 5, 9)
        let assessment = try store.database.admitSubmission(store.request("S2001", .assessment, at: after), policy: policy)
        let submission = try #require(assessment.submission)
        #expect(submission.feedbackDueAt == after.addingTimeInterval(48 * 3_600))
        try encode(store, assessment, at: after.addingTimeInterval(60))
        #expect(try store.database.admitSubmission(store.request("S2001", .week(1), at: after), policy: policy).refusal == .notPlaced(placementDueHours: 48))
        let timeline = try await #require(try store.database.timeline(studentId: "S2001", policy: policy, now: after))
        #expect(timeline.pendingAssessment?.id == submission.id && !timeline.enrolment.isPlaced)

        #expect(try await store.database.statusFacts(now: after, feedbackDue: 48 * 3_600).awaitingPlacement == 1)
        // Only the placing coach sees it in the queue and may place.
        #expect(try await store.database.coachQueue(coachId: "C02", now: Date()).map(\.submission.id) == [submission.id])
        #expect(try await store.database.coachQueue(coachId: "C01", now: Date()).isEmpty)
        #expect(try await store.database.coachMaySee(studentId: "S2001", coachId: "C01", now: Date()) == false)
        #expect(try await store.database.coachMaySee(studentId: "S2001", coachId: "C02", now: Date()) == true)
        let refused = try await store.database.placeStudent("S2001", levelId: "L1", coachId: "C01", semesterId: "spring-2027",
                                                            by: .coach("C01"), now: after)
        #expect(refused.failure == .notPlacingCoach("C01"))
        let closed = try await store.database.placeStudent("S2001", levelId: "L1", coachId: "C01", semesterId: "fall-2026",
                                                           by: .coach("C02"), now: after)
        #expect(closed.failure == .semesterClosed("fall-2026"))
        let placed = try await store.database.placeStudent("S2001", levelId: "L1", coachId: "C01", semesterId: "spring-2027",
                                                           by: .coach("C02"), now: after)
        let enrolment = try #require(placed.success)
        #expect(enrolment.semesterId == "spring-2027" && enrolment.placedBy == "coach:C02")
        let ready = try #require(try events(store, "placement_ready").first)
        #expect(ready.extra?.level?.name == "Foundations" && ready.extra?.coach?.name == "Ustadha Maryam")
        #expect(ready.message == "You've been placed in Foundations; your coach is Ustadha Maryam.")
        // The placement answered the assessment; nobody awaits placement any more.
        #expect(try await store.database.submission(id: submission.id)?.state == .feedbackReady)
        #expect(try await store.database.coachQueue(coachId: "C02", now: Date()).isEmpty)
        let facts = try await store.database.statusFacts(now: after, feedbackDue: 48 * 3_600)
        #expect(facts.awaitingPlacement == 0 && facts.overdueByCoach["unplaced"] == nil)
        let changes = try await store.database.engine.read { db in
            try String.fetchAll(db, sql: "SELECT change || ':' || changedBy FROM enrolmentChange WHERE enrolmentId = ? ORDER BY id",
                                arguments: [enrolment.id])
        }
        #expect(changes == ["enrolled:coach:C02", "placed:coach:C02"])
    }

    @Test("a re-recording that fails for good returns the week to the recording it superseded and tells the student")
    func failedRestores() throws {
        let store = try Self.yearStore()
        defer { store.remove() }
        let at = Self.fall.unlock(week: 3).addingTimeInterval(3_600)
        let first = try store.database.admitSubmission(store.request("S1001", .week(3), at: at), policy: policy)
        try encode(store, first, at: at.addingTimeInterval(60))
        let firstId = try #require(first.submission).id
        let second = try store.database.admitSubmission(store.request("S1001", .week(3), at: at.addingTimeInterval(3_600)), policy: policy)
        guard case let .admitted(secondRecord, _, job) = second else { Issue.record("not admitted"); return }
        #expect(try store.database.submission(id: firstId)?.state == .superseded)
        #expect(try store.database.coachQueue(coachId: "C01", now: Date()).isEmpty)

        try store.database.failJob(id: try #require(job.id), error: "decoder crashed", retryAt: nil, now: at.addingTimeInterval(7_200))
        #expect(try store.database.submission(id: secondRecord.id)?.state == .failed)
        #expect(try store.database.submission(id: firstId)?.state == .awaitingFeedback)
        #expect(try store.database.coachQueue(coachId: "C01", now: Date()).map(\.submission.id) == [firstId])
        #expect(try store.database.pairFeedback(.slot(student: "S1001", slot: .week(3)), coachId: "C01", now: Date()).submissionId == firstId)
        let failed = try #require(try events(store, "submission_failed").first)
        #expect(failed.message == "We couldn't process your recording for Week 3 (Title 3) — please record it again; it did not use an attempt.")
        #expect(failed.submissionId == secondRecord.id)
        // The attempt is back: one used (the first), one free.
        #expect(try store.database.attemptStatus(studentId: "S1001", policy: policy, now: at.addingTimeInterval(7_300))?.used == 1)
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { true } else { false }
    }

    var success: Success? {
        if case let .success(value) = self { value } else { nil }
    }

    var failure: Failure? {
        if case let .failure(error) = self { error } else { nil }
    }
}

extension Result where Failure == FeedbackRefusal {
    var failureCode: String? { failure?.code }
}

extension Result where Success == SubmissionRecord, Failure == FeedbackRefusal {
    var submissionId: String? { success?.id }
}
