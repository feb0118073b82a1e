import Foundation
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A drop-folder file is one reply however many nodes get to it (README, "Coach replies").
@Suite("Drop-folder files: one reply per file, whichever node records it first")
struct DropFileOnceTests {
    @Test("Two nodes record the same file: the second is answered with the first's reply, and one reply exists",
          arguments: TestEngine.all)
    func sameFileTwice(engine: TestEngine) throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        let calendar = try SemesterCalendar(start: TestStore.semesterStart, timeZoneIdentifier: "America/New_York")
        let at = calendar.unlock(week: 1).addingTimeInterval(86_400)
        let outcome = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        guard case let .admitted(submission, _, job) = outcome, let jobId = job.id else {
            Issue.record("not admitted: \(String(describing: outcome.refusal))")
            return
        }
        try store.database.completeSubmissionEncode(jobId: jobId, submissionId: submission.id, audioPath: "a/\(submission.id).opus",
                                                    audioBytes: 10, waveformPath: "w/\(submission.id).json", outputGainDB: 0, now: at)

        func record(on database: AppDatabase, id: String) throws -> FeedbackRecord? {
            let request = FeedbackRequest(feedbackId: id, coachId: "C01", receivedAt: at.addingTimeInterval(3_600), notes: nil,
                                          analysis: TestStore.analysis, originalPath: "originals/\(id).m4a", origin: .dropbox,
                                          dropFile: (sha256: "d1f0", fileName: "S1001_w01.m4a"))
            return try database.recordFeedback(request, target: .slot(student: "S1001", slot: .week(1))).get().0
        }
        let first = try #require(try record(on: store.database, id: "fb-first"))
        let second = try #require(try record(on: other, id: "fb-second"))
        #expect(first.id == "fb-first")
        #expect(second.id == "fb-first", "the file was recorded already: its reply answers")
        let replies = try store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback") }
        let jobs = try store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE kind = 'encode_feedback'") }
        #expect(replies == 1 && jobs == 1, "\(String(describing: replies)) replies, \(String(describing: jobs)) jobs")
    }
}
