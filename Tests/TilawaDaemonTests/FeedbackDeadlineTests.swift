import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("The feedback deadline")
struct FeedbackDeadlineTests {
    @Test("A submission without feedback 48 h after it arrived tells its coach and operations, once (feedback_overdue), not the student")
    func overdueOnce() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let staged = daemon.runtime.stateDirectory.newStagingPath(extension: "opus")
        try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
        guard case let .accepted(_, _, job) = try daemon.runtime.intake.submit(
            stagedPath: staged, studentId: "S1001", slot: .week(12), origin: .cli, fileExtension: "opus") else {
            Issue.record("not accepted"); return
        }
        daemon.runtime.encodeRunner.run(try #require(try daemon.runtime.database.claimJob(id: job.id!, worker: "t", now: daemon.clock.now)))
        let due = daemon.runtime.configuration.program.feedbackDue
        #expect(try await daemon.runtime.database.recordOverdueFeedback(now: daemon.clock.now.addingTimeInterval(due - 60), policy: daemon.runtime.policy) == 0)
        #expect(try await daemon.runtime.database.recordOverdueFeedback(now: daemon.clock.now.addingTimeInterval(due + 60), policy: daemon.runtime.policy) == 1)
        #expect(try await daemon.runtime.database.recordOverdueFeedback(now: daemon.clock.now.addingTimeInterval(due + 3_600), policy: daemon.runtime.policy) == 0)
        // The coach (their own) and operations are told, once each; the student is not.
        let coachEvents = try await daemon.runtime.database.coachEvents(coachId: "C01", after: 0, limit: 50)
        #expect(coachEvents.map(\.type) == ["submission_ready_for_review", "feedback_overdue"])
        let payload = try JSONDecoder.api.decode(EventPayload.self, from: try #require(coachEvents.last).payload)
        #expect(payload.week?.number == 12 && payload.recipient == "coach" && payload.recipientId == "C01" && payload.studentId == "S1001")
        #expect(payload.message.hasPrefix("Aisha Rahman's recording for week 12 (") && payload.message.contains("waiting for Ustadha Maryam Haddad's reply"))
        let ops = try await daemon.runtime.database.engine.read { db in
            try String.fetchAll(db, sql: "SELECT type FROM event WHERE recipient = 'ops'")
        }
        #expect(ops == ["feedback_overdue"])
        #expect(try await daemon.runtime.database.events(studentId: "S1001", after: 0, limit: 50).allSatisfy { $0.type != "feedback_overdue" })
        #expect(try await daemon.runtime.database.coachEvents(coachId: "C02", after: 0, limit: 50).isEmpty)
    }
}
