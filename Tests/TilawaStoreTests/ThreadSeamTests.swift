import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Questions under a reply where they meet the back office: a reply moved to another student's
/// recording, and a coach covered by another.
@Suite("Questions stay with the student who asked, and follow a cover as recordings do")
struct ThreadSeamTests {
    let policy = ProgramPolicy()
    static let at = TestStore.newYork(2026, 9, 20)

    /// S1001 (coach C01) and S1002 (coach C02) each with a week-2 recording; C01's reply to
    /// S1001's is ready. Returns the store, both recordings and the reply.
    private func answered(_ engine: TestEngine) async throws -> (TestStore, String, String, String) {
        let store = try TestStore(engine)
        let first = try #require(try store.database.admitSubmission(store.request("S1001", .week(2), at: Self.at), policy: policy).submission)
        let second = try #require(try store.database.admitSubmission(store.request("S1002", .week(2), at: Self.at), policy: policy).submission)
        let reply = IdentifierGenerator.make("fb")
        try await store.database.engine.write { db in
            try db.execute(sql: "UPDATE enrolment SET coachId = 'C02' WHERE studentId = 'S1002'")
            try db.execute(sql: "UPDATE submission SET state = 'feedback_ready' WHERE id = ?", arguments: [first.id])
            try db.execute(sql: "UPDATE submission SET state = 'awaiting_feedback' WHERE id = ?", arguments: [second.id])
            var feedback = FeedbackRecord(id: reply, submissionId: first.id, coachId: "C01", receivedAt: Self.at, notes: nil,
                                          analysis: TestStore.analysis, originalPath: "originals/r.wav", origin: .http)
            feedback.state = .ready
            try feedback.insert(db)
        }
        return (store, first.id, second.id, reply)
    }

    private func ask(_ store: TestStore, _ reply: String, _ student: String, _ text: String, at: Date) async throws -> CommentRecord {
        let asked = try await store.database.addComment(feedbackId: reply, author: .student, authorId: student, text: text, policy: policy, now: at)
        guard case let .success(comment) = asked else { throw AskFailed(refusal: "\(asked)") }
        return comment
    }

    struct AskFailed: Error { var refusal: String }

    @Test("a reply moved to another student's recording leaves the first student's questions with them, closed; the new student starts a thread of their own",
          arguments: TestEngine.all)
    func moveKeepsQuestionsHome(engine: TestEngine) async throws {
        let (store, first, second, reply) = try await answered(engine)
        defer { store.remove() }
        let question = try await ask(store, reply, "S1001", "Is this reply meant for me? Aisha", at: Self.at.addingTimeInterval(60))
        #expect(try await store.database.openQuestions(coachId: "C01", now: Self.at.addingTimeInterval(90)).map(\.comment.id) == [question.id])

        let moved = try await store.database.apply(.moveFeedback(feedbackId: reply, submissionId: second), by: "ops", reason: "misfiled",
                                                   policy: policy, now: Self.at.addingTimeInterval(120))
        guard case .success = moved else { Issue.record("not moved: \(moved)"); return }

        // The thread under the reply is the new student's: nothing of S1001's is in it.
        #expect(try await store.database.comments(feedbackIds: [reply])[reply] == nil)
        let kept = try #require(try await store.database.comment(id: question.id))
        #expect(kept.submissionId == first && kept.studentId == "S1001", "the question stays on the asker's recording")
        #expect(kept.answeredAt != nil, "closed: it no longer waits for any coach")
        for coach in ["C01", "C02"] {
            #expect(try await store.database.openQuestions(coachId: coach, now: Self.at.addingTimeInterval(180)).isEmpty, "\(coach)")
        }
        let theirs = try await ask(store, reply, "S1002", "Thank you", at: Self.at.addingTimeInterval(240))
        #expect(try await store.database.comments(feedbackIds: [reply])[reply]?.map(\.id) == [theirs.id])
        #expect(try await store.database.openQuestions(coachId: "C02", now: Self.at.addingTimeInterval(300)).map(\.comment.id) == [theirs.id])

        // The asker's erasure reaches their words, wherever the reply went.
        _ = try await store.database.erase(studentId: "S1001", force: true, by: "ops", reason: "asked", now: Self.at.addingTimeInterval(360))
        #expect(try await store.database.comment(id: question.id)?.text == "")
        #expect(try await store.database.comment(id: theirs.id)?.text == "Thank you")
    }

    @Test("under a cover, open questions are the covering coach's: in their queue, answered by them, asked of them; not the covered coach's",
          arguments: TestEngine.all)
    func coverHandsOverQuestions(engine: TestEngine) async throws {
        let (store, _, _, reply) = try await answered(engine)
        defer { store.remove() }
        let before = try await ask(store, reply, "S1001", "Before the cover", at: Self.at.addingTimeInterval(60))
        let covered = try await store.database.apply(.cover(coachId: "C01", coveringCoachId: "C02", until: Self.at.addingTimeInterval(7 * 86_400)),
                                                     by: "ops", reason: "leave", policy: policy, now: Self.at.addingTimeInterval(120))
        guard case .success = covered else { Issue.record("no cover: \(covered)"); return }
        let during = try await ask(store, reply, "S1001", "During the cover", at: Self.at.addingTimeInterval(180))
        let now = Self.at.addingTimeInterval(240)
        #expect(try await store.database.openQuestions(coachId: "C02", now: now).map(\.comment.id) == [before.id, during.id])
        #expect(try await store.database.openQuestions(coachId: "C01", now: now).isEmpty)
        let asked = try await store.database.engine.read { db in
            try String.fetchAll(db, sql: "SELECT recipientId FROM event WHERE type = 'question_asked' ORDER BY seq")
        }
        #expect(asked == ["C01", "C02"], "each asked of the coach who answered then")

        let refused = try await store.database.addComment(feedbackId: reply, author: .coach, authorId: "C01", text: "Me", policy: policy, now: now)
        #expect(refused == .failure(.notFound), "the covered coach does not answer while covered")
        let answer = try await store.database.addComment(feedbackId: reply, author: .coach, authorId: "C02", text: "Here", policy: policy, now: now)
        guard case .success = answer else { Issue.record("the covering coach could not answer: \(answer)"); return }
        #expect(try await store.database.openQuestions(coachId: "C02", now: now).isEmpty)
        // Once the cover ends, what is asked is C01's again.
        let after = Self.at.addingTimeInterval(8 * 86_400)
        let later = try await ask(store, reply, "S1001", "After", at: after)
        #expect(try await store.database.openQuestions(coachId: "C01", now: after).map(\.comment.id) == [later.id])
        #expect(try await store.database.openQuestions(coachId: "C02", now: after).isEmpty)
    }
}
