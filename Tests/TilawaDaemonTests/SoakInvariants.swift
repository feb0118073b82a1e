import Foundation
import GRDB
import Testing
@testable import TilawaStore
import TilawaS3
import TilawaTestSupport

/// What the soaks on PostgreSQL and an S3 store (NodeSoakTests, ChaosSoakTests) check once their
/// faults are over, read from the state's database, the store's listing and the webhook
/// receiver: every recording encoded by one job with its objects stored, every reply taken once,
/// every event delivered. Each check records its failures where it was called from.
enum SoakInvariants {
    /// Whether nothing is left to do: no job queued or running, every event delivered.
    static func settled(_ state: CommandLineStateFixture) -> Bool {
        let pending = (try? state.read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM job WHERE state IN ('queued','running'))
                     + (SELECT COUNT(*) FROM event WHERE deliveredAt IS NULL)
                """)
        }) ?? 1
        return pending == 0
    }

    /// Waits until `settled` (polled every 250 ms, within the hang limit); whether it came.
    static func waitUntilSettled(_ state: CommandLineStateFixture) async throws -> Bool {
        for _ in 0..<(TestTime.hangSeconds * 4) where !settled(state) { try await Task.sleep(for: .milliseconds(250)) }
        return settled(state)
    }

    /// Every submission, with the columns the checks read.
    static func submissions(in state: CommandLineStateFixture) throws -> [Row] {
        try state.read { db in
            try Row.fetchAll(db, sql: "SELECT id, studentId, kind, state, encodedAt, audioPath, originalPath, waveformPath FROM submission")
        }
    }

    /// The recordings the attempt rule counts (weeks and end-of-course ones, not failed), per student.
    static func countedPerStudent(in state: CommandLineStateFixture) throws -> [String: Int] {
        let rows = try state.read { db in
            try Row.fetchAll(db, sql: "SELECT studentId, COUNT(*) AS n FROM submission WHERE kind IN ('week','eoc') AND state != 'failed' GROUP BY studentId")
        }
        return Dictionary(rows.map { ($0["studentId"] as String, $0["n"] as Int) }, uniquingKeysWith: +)
    }

    /// Every recording of `rows` encoded, by exactly one encode job, done.
    static func expectEncodedOnce(_ rows: [Row], in state: CommandLineStateFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(rows.allSatisfy { ($0["encodedAt"] as String?) != nil }, "not encoded: \(rows.filter { ($0["encodedAt"] as String?) == nil })",
                sourceLocation: sourceLocation)
        let jobs = try state.read { db in
            try Row.fetchAll(db, sql: """
                SELECT subjectId, COUNT(*) AS n, MIN(state) AS low, MAX(state) AS high FROM job WHERE kind = 'encode_submission' GROUP BY subjectId
                """)
        }
        #expect(jobs.count == rows.count && jobs.allSatisfy { ($0["n"] as Int) == 1 && ($0["low"] as String) == "done" && ($0["high"] as String) == "done" },
                "\(jobs.filter { ($0["n"] as Int) != 1 || ($0["low"] as String) != "done" })", sourceLocation: sourceLocation)
    }

    /// The keys `bucket` holds under `prefix/`, that prefix taken off: the artifacts' paths.
    static func storedObjects(_ client: S3Client, bucket: String, prefix: String) async throws -> Set<String> {
        var objects = Set<String>()
        var token: String?
        repeat {
            let page = try await client.listObjects(bucket: bucket, prefix: prefix + "/", continuationToken: token)
            objects.formUnion(page.objects.map { String($0.key.dropFirst(prefix.count + 1)) })
            token = page.nextContinuationToken
        } while token != nil
        return objects
    }

    /// Each row's artifacts (`audioPath`, `waveformPath`, `originalPath`, where set) among
    /// `objects`; `label` starts each failure's message ("reply ").
    static func expectStored(_ rows: [Row], in objects: Set<String>, label: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        for row in rows {
            for column in ["audioPath", "waveformPath", "originalPath"] {
                guard let path = row[column] as String? else { continue }
                #expect(objects.contains(path), "\(label)\(row["id"] as String): \(column) \(path) is not in the store", sourceLocation: sourceLocation)
            }
        }
    }

    /// Every coach's reply, with its artifacts and how many encode jobs it has and has done.
    static func replies(in state: CommandLineStateFixture) throws -> [Row] {
        try state.read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.id, f.submissionId, f.audioPath, f.waveformPath, f.originalPath,
                       (SELECT COUNT(*) FROM job j WHERE j.subjectId = f.id) AS jobs,
                       (SELECT COUNT(*) FROM job j WHERE j.subjectId = f.id AND j.state = 'done') AS done
                FROM feedback f
                """)
        }
    }

    /// No recording answered twice; each reply encoded by one job, done.
    static func expectRepliesEncodedOnce(_ replies: [Row], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(replies.map { $0["submissionId"] as String }).count == replies.count, "a recording answered twice", sourceLocation: sourceLocation)
        #expect(replies.allSatisfy { ($0["jobs"] as Int) == 1 && ($0["done"] as Int) == 1 }, "\(replies.filter { ($0["done"] as Int) != 1 })",
                sourceLocation: sourceLocation)
    }

    /// The outbox's events, checked: every one received by `receiver` (duplicates after a kill
    /// carry the same webhook-id), signed, in order per recipient. With `awaitingDeliveries`
    /// (nodes still running, which may record an event meanwhile), a delivery still under way is
    /// waited for first, within the hang limit.
    @discardableResult
    static func expectEventsDelivered(in state: CommandLineStateFixture, to receiver: WebhookReceiver, awaitingDeliveries: Bool = true,
                                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> [EventRecord] {
        func taken(_ calls: [ReceivedCall]) -> Set<String> { Set(calls.filter(\.wasTaken).compactMap(\.eventId)) }
        // The calls first, then the events: every call's event is in the outbox already.
        var calls = receiver.calls
        var events = try state.read { db in try EventRecord.fetchAll(db, orderBy: "seq") }
        for _ in 0..<(awaitingDeliveries ? TestTime.hangSeconds * 4 : 0) where !Set(events.map(\.id)).isSubset(of: taken(calls)) {
            try await Task.sleep(for: .milliseconds(250))
            calls = receiver.calls
            events = try state.read { db in try EventRecord.fetchAll(db, orderBy: "seq") }
        }
        #expect(taken(calls) == Set(events.map(\.id)), "events not received: \(Set(events.map(\.id)).subtracting(taken(calls)).count)",
                sourceLocation: sourceLocation)
        let webhookIds = Dictionary(grouping: calls.filter(\.wasTaken), by: { $0.eventId ?? "" })
            .mapValues { Set($0.compactMap { $0.standardHeaders["webhook-id"] }) }
        #expect(webhookIds.values.allSatisfy { $0.count == 1 }, "an event sent again under another webhook-id", sourceLocation: sourceLocation)
        #expect(calls.allSatisfy { $0.signatureError == nil }, sourceLocation: sourceLocation)
        #expect(callsAreInOrderPerRecipient(calls, events: events), sourceLocation: sourceLocation)
        return events
    }

    /// How many events of `type` name each value of the payload's `member` (`submission_id`, `feedback_id`).
    static func subjects(of events: [EventRecord], type: String, member: String) -> [String: Int] {
        events.filter { $0.type == type }
            .compactMap { ((try? JSONSerialization.jsonObject(with: $0.payload)) as? [String: Any])?[member] as? String }
            .reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }
}
