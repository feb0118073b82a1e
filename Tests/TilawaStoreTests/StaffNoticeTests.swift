import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Events about no student: the coach's daily digest and storage_low")
struct StaffNoticeTests {
    let digest = DailyMoment(at: LocalTime(hour: 7, minute: 0)!)
    let newYork = TimeZone(identifier: "America/New_York")!

    func staffEvents(_ store: TestStore, _ type: String) throws -> [(record: EventRecord, payload: EventPayload)] {
        try store.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "type = ?", [type], orderBy: "seq")
        }.map { ($0, try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload)) }
    }

    /// Admits and encodes a recording of `student` for `week` at `at`, so it awaits a reply.
    func awaiting(_ store: TestStore, _ student: String, week: Int, at: Date) throws {
        let outcome = try store.database.admitSubmission(store.request(student, .week(week), at: at), policy: ProgramPolicy())
        guard case let .admitted(submission, _, job) = outcome, let jobId = job.id else {
            Issue.record("not admitted: \(String(describing: outcome.refusal))")
            return
        }
        try store.database.completeSubmissionEncode(jobId: jobId, submissionId: submission.id, audioPath: "a/\(submission.id).opus",
                                                    audioBytes: 10, waveformPath: "w/\(submission.id).json", outputGainDB: 0, now: at)
    }

    @Test("due from the local hour that day only, once per coach and day, only when the queue holds something", arguments: TestEngine.all)
    func coachDigest(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002"])
        defer { store.remove() }
        // Two recordings for C01: one received Monday 08:00 (due Wednesday 08:00), one Tuesday 09:00.
        try awaiting(store, "S1001", week: 10, at: TestStore.newYork(2026, 11, 9, 8))
        try awaiting(store, "S1002", week: 10, at: TestStore.newYork(2026, 11, 10, 9))

        // Wednesday 06:59: not yet.
        #expect(try await store.database.recordCoachDigests(moment: digest, timeZone: newYork, now: TestStore.newYork(2026, 11, 11, 6, 59)) == 0)
        // 07:00: C01 gets one; C02 has nothing waiting and gets none.
        let seven = TestStore.newYork(2026, 11, 11, 7)
        #expect(try await store.database.recordCoachDigests(moment: digest, timeZone: newYork, now: seven) == 1)
        #expect(try await store.database.recordCoachDigests(moment: digest, timeZone: newYork, now: seven.addingTimeInterval(60)) == 0)
        // Later the same day (a restart, a second daemon): nothing more, though the queue grows.
        try awaiting(store, "S1002", week: 9, at: TestStore.newYork(2026, 11, 11, 12))
        #expect(try await store.database.recordCoachDigests(moment: digest, timeZone: newYork, now: TestStore.newYork(2026, 11, 11, 23, 59)) == 0)

        var digests = try staffEvents(store, "coach_digest")
        #expect(digests.count == 1)
        let first = try #require(digests.first)
        #expect(first.record.studentId == nil && first.record.recipient == "coach" && first.record.recipientId == "C01"
                && first.record.queue == "coach:C01")
        #expect(first.payload.studentId == nil && first.payload.week == nil && first.payload.link == "quranflow://coach/queue")
        #expect(first.payload.extra?.queue == EventPayload.QueueDigest(
            awaiting: 2, overdue: 0, openQuestions: 0, oldestDueAt: TestStore.newYork(2026, 11, 11, 8)))
        #expect(first.payload.message == "Your queue: 2 recordings awaiting your reply; the oldest is due Wednesday 11 November, 08:00 EST.")
        // The body names student_id and week as null, as the schema requires.
        let json = String(decoding: first.record.payload, as: UTF8.self)
        #expect(json.contains("\"student_id\":null") && json.contains("\"week\":null") && json.contains("\"oldest_due_at\":\"2026-11-11T13:00:00Z\""))

        // A daemon down over Thursday 07:00 sends Thursday's when it is back, that day.
        #expect(try await store.database.recordCoachDigests(moment: digest, timeZone: newYork, now: TestStore.newYork(2026, 11, 12, 15)) == 1)
        digests = try staffEvents(store, "coach_digest")
        // Monday's (due Wednesday 08:00) and Tuesday's (due Thursday 09:00) are overdue; Wednesday noon's is not.
        #expect(digests.last?.payload.extra?.queue?.overdue == 2)
        #expect(digests.last?.payload.message == "Your queue: 3 recordings awaiting your reply (2 overdue); the oldest was due Wednesday 11 November, 08:00 EST.")
    }

    @Test("storage_low goes to operations at most once a local day", arguments: TestEngine.all)
    func storageLow(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let facts = EventPayload.StorageFacts(freeBytes: 500_000_000, totalBytes: 10_000_000_000, minimumFreeBytes: 268_435_456)
        let monday = TestStore.newYork(2026, 11, 9, 10)
        #expect(try await store.database.recordStorageLow(facts, timeZone: newYork, now: monday))
        #expect(try await !store.database.recordStorageLow(facts, timeZone: newYork, now: monday.addingTimeInterval(13 * 3_600)))
        // 00:30 the next local day (05:30 UTC): a new day, one more.
        #expect(try await store.database.recordStorageLow(facts, timeZone: newYork, now: TestStore.newYork(2026, 11, 10, 0, 30)))
        let events = try staffEvents(store, "storage_low")
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.record.recipient == "ops" && $0.record.queue == "ops" && $0.record.studentId == nil })
        #expect(events.first?.payload.extra?.storage == facts && events.first?.payload.link == "quranflow://ops/status")
    }

    @Test("the rebuilt event table keeps every row, its cursors and indexes; a new event's cursor never goes back")
    func rebuildKeepsCursors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tilawa.sqlite").path
        // The previous release's database, migrated to just before the rebuild; its newest
        // event deleted (so the table's sequence is ahead of its rows).
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: try String(contentsOf: EnrolmentMigrationTests.dump, encoding: .utf8))
        }
        try AppDatabase.migrator.migrate(queue, upTo: "feedback: questions")
        let before = try queue.write { db in
            let newest = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM event") ?? 0
            try db.execute(sql: "DELETE FROM event WHERE seq = ?", arguments: [newest])
            return (newest: newest, rows: try Row.fetchAll(db, sql: "SELECT * FROM event ORDER BY seq"))
        }
        try queue.close()
        #expect(before.rows.count == 6)

        let database = try AppDatabase.open(path: path)
        try database.writer.write { db in
            // The columns the rows had (later migrations add more, e.g. readAt).
            let columns = (before.rows.first.map { Array($0.columnNames) } ?? ["seq"]).map { "\"\($0)\"" }.joined(separator: ", ")
            #expect(try Row.fetchAll(db, sql: "SELECT \(columns) FROM event ORDER BY seq") == before.rows)
            #expect(Set(try db.indexes(on: "event").map(\.name)).isSuperset(of: [
                "event_student_seq", "event_undelivered", "event_delivered_occurred", "event_queue_seq", "event_recipient_seq"]))
            #expect(try db.columns(in: "event").first { $0.name == "studentId" }?.isNotNull == false)
            let id = try AppDatabase.recordStaffEvent(SQLSession(db), type: .storageLow, occurredAt: Date(), message: StudentMessages.announcement(title: "low", body: "disk"), link: .operationsStatus,
                                                      extra: nil, recipient: .ops)
            let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM event WHERE id = ?", arguments: [id]) ?? 0
            #expect(seq > before.newest, "a feed cursor handed out before the rebuild is never reused")
            #expect(throws: StoreError.self) {
                try AppDatabase.recordStaffEvent(SQLSession(db), type: .storageLow, occurredAt: Date(), message: StudentMessages.announcement(title: "x", body: "y"), link: .operationsStatus,
                                                 extra: nil, recipient: .student)
            }
        }
    }
}
