import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("POST /v1/submissions/{id}/feedback with Idempotency-Key (the coach's key space)")
struct FeedbackIdempotencyTests {
    /// S1001's (coach C01) and S1002's (coach C02) week-12 recordings, encoded.
    private func recordings(_ daemon: TestDaemon, _ client: LiveClient) async throws -> (String, String) {
        var ids: [String] = []
        for student in ["S1001", "S1002"] {
            let upload = try await client.execute(uri: "/v1/students/\(student)/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, student, [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            let id = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            ids.append(id)
        }
        return (ids[0], ids[1])
    }

    private func replies(_ daemon: TestDaemon, to submissionId: String) throws -> Int {
        try daemon.runtime.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback WHERE submissionId = ?", arguments: [submissionId]) ?? -1
        }
    }

    @Test("a retry after a lost answer gets the same reply again, Idempotent-Replayed, and stores no second reply; another body under the key is 409 idempotency_key_reused")
    func retryAfterLostAnswer() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (submission, _) = try await recordings(daemon, client)
            let headers = try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg", .idempotencyKey: "reply-1"])
            let first = try await client.execute(uri: "/v1/submissions/\(submission)/feedback", method: .post, headers: headers,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(first.status == .created)
            #expect(first.headers[.idempotentReplayed] == nil)
            let feedbackId = try #require(first.json?["id"] as? String)

            // The answer was lost; the desk retries the same bytes with the same key.
            let retry = try await client.execute(uri: "/v1/submissions/\(submission)/feedback", method: .post, headers: headers,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(retry.status == .created, "\(String(buffer: retry.body))")
            #expect(retry.headers[.idempotentReplayed] == "true")
            #expect(retry.json?["id"] as? String == feedbackId)
            #expect(retry.headers[.location] == "/v1/feedback/\(feedbackId)/audio")
            #expect(try replies(daemon, to: submission) == 1)

            // Once encoded, a replay tells the reply as it is now.
            #expect(await daemon.eventually { try daemon.runtime.database.feedback(id: feedbackId)?.state == .ready })
            let later = try await client.execute(uri: "/v1/submissions/\(submission)/feedback", method: .post, headers: headers,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(later.status == .created && later.headers[.idempotentReplayed] == "true")
            #expect(later.json?["state"] as? String == "ready", "\(String(buffer: later.body))")

            // Another recording under the same key: refused, nothing stored.
            let other = try await client.execute(uri: "/v1/submissions/\(submission)/feedback", method: .post, headers: headers,
                                                 body: try TestDaemon.fixture("speech.m4a"))
            #expect(other.status == .conflict && other.json?["code"] as? String == "idempotency_key_reused")
            // The same bytes with an EOC result the first request did not carry are another request too.
            let result = try await client.execute(uri: "/v1/submissions/\(submission)/feedback?result=pass", method: .post, headers: headers,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(result.status == .conflict && result.json?["code"] as? String == "idempotency_key_reused")
            #expect(try replies(daemon, to: submission) == 1)
            #expect(daemon.stagingFiles().isEmpty)

            // Without a key, the same bytes again are what they always were: a second reply.
            let unkeyed = try await client.execute(uri: "/v1/submissions/\(submission)/feedback", method: .post,
                                                   headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(unkeyed.status == .created && unkeyed.json?["id"] as? String != feedbackId)
            #expect(try replies(daemon, to: submission) == 2)
        }
    }

    @Test("the key answered for one submission is refused for another before the body; a key in flight is 409 idempotency_key_in_use; keys are per coach")
    func keySpaces() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (mine, theirs) = try await recordings(daemon, client)
            let c01 = try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg", .idempotencyKey: "same-key"])
            let first = try await client.execute(uri: "/v1/submissions/\(mine)/feedback", method: .post, headers: c01,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(first.status == .created)

            // S1003 is C01's too: the key already answered for S1001's recording.
            let upload = try await client.execute(uri: "/v1/students/S1003/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1003", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            let third = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: third)?.state == .awaitingFeedback })
            let reused = try await client.execute(uri: "/v1/submissions/\(third)/feedback", method: .post, headers: c01,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(reused.status == .conflict && reused.json?["code"] as? String == "idempotency_key_reused")
            #expect(try replies(daemon, to: third) == 0)

            // C02's key space is their own: the same key string answers C02's student.
            let c02 = try await daemon.headers(.coach, "C02", [.contentType: "audio/ogg", .idempotencyKey: "same-key"])
            let other = try await client.execute(uri: "/v1/submissions/\(theirs)/feedback", method: .post, headers: c02,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(other.status == .created && other.headers[.idempotentReplayed] == nil)

            // A request still running with the key (its claim in the table): refused before the body.
            let database = daemon.runtime.database
            _ = try await database.claimIdempotencyKey(owner: .coach("C01"), key: "busy", requestHash: "\(third):none:x", now: daemon.clock.now,
                                                       retention: 86_400, inFlightTimeout: 3_600)
            let busy = try await client.execute(uri: "/v1/submissions/\(third)/feedback", method: .post,
                                                headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg", .idempotencyKey: "busy"]),
                                                body: try TestDaemon.fixture("speech.opus"))
            #expect(busy.status == .conflict && busy.json?["code"] as? String == "idempotency_key_in_use")
            #expect(try replies(daemon, to: third) == 0)

            // Another coach's key cannot reach C01's submission: the pairing's uniform 404 first.
            let foreign = try await client.execute(uri: "/v1/submissions/\(third)/feedback", method: .post,
                                                   headers: try await daemon.headers(.coach, "C02", [.contentType: "audio/ogg", .idempotencyKey: "k-2"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(foreign.status == .notFound)
        }
    }

    @Test("Keys written before the owner column stay a student's: the migration renames, it does not rewrite")
    func studentKeysSurviveTheMigration() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let database = daemon.runtime.database
        let now = daemon.clock.now
        #expect(try await database.claimIdempotencyKey(owner: .student("S1001"), key: "k", requestHash: "12:abc", now: now,
                                                       retention: 86_400, inFlightTimeout: 3_600) == .unused)
        // The coach's `k` is another key than the student's.
        #expect(try await database.claimIdempotencyKey(owner: .coach("S1001"), key: "k", requestHash: "x:abc", now: now,
                                                       retention: 86_400, inFlightTimeout: 3_600) == .unused)
        let owners = try await database.engine.read { db in try String.fetchAll(db, sql: "SELECT owner FROM idempotencyKey ORDER BY owner") }
        #expect(owners == ["S1001", "coach:S1001"])
    }
}
