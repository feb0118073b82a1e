import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaStore

@Suite("Durable job queue")
struct JobQueueTests {
    @Test("Jobs are claimed once each, oldest first; abandoned ones come back, live ones do not", arguments: TestEngine.all)
    func claimAndRequeue(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        for week in 1...2 {
            _ = try store.database.admitSubmission(store.request("S100\(week)", .week(week), at: at), policy: ProgramPolicy())
        }
        let first = try #require(try store.database.claimNextJob(worker: "dead@host", now: at))
        let second = try #require(try store.database.claimNextJob(worker: "alive@host", now: at))
        #expect(first.id! < second.id!)
        #expect(try store.database.claimNextJob(worker: "x", now: at) == nil)
        #expect(try store.database.requeueAbandonedJobs { $0 == "alive@host" } == 1)
        let again = try #require(try store.database.claimNextJob(worker: "y", now: at))
        #expect(again.id == first.id && again.attempts == 2)
    }

    @Test("A retried job waits until its notBefore", arguments: TestEngine.all)
    func retryWaits(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        _ = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        let job = try #require(try store.database.claimNextJob(worker: "w", now: at))
        try store.database.failJob(id: job.id!, error: "disk hiccup", retryAt: at.addingTimeInterval(30), now: at)
        #expect(try store.database.claimNextJob(worker: "w", now: at.addingTimeInterval(29)) == nil)
        #expect(try store.database.claimNextJob(worker: "w", now: at.addingTimeInterval(30))?.id == job.id)
    }
}
