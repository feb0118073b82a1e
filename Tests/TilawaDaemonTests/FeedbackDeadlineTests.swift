import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

@Suite("The feedback deadline")
struct FeedbackDeadlineTests {
    @Test("A submission without feedback 48 h after it arrived gets feedback_overdue once")
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
        let events = try await daemon.runtime.database.events(studentId: "S1001", after: 0, limit: 10).filter { $0.type == "feedback_overdue" }
        #expect(events.count == 1)
        let payload = try JSONDecoder.api.decode(EventPayload.self, from: try #require(events.first).payload)
        #expect(payload.week.number == 12)
    }
}
