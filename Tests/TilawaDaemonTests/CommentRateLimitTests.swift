import AsyncHTTPClient
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Issue 26 item 8: `comments.max_per_minute` per author, counted from the database.
@Suite("Comments: a limit per author and minute")
struct CommentRateLimitTests {
    func questionsAsked(_ daemon: TestDaemon) throws -> Int {
        try daemon.runtime.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE type = 'question_asked'") ?? -1
        }
    }

    @Test("the 11th comment of a minute is 429 too_many_comments with Retry-After until the oldest leaves the window; a voice clip over the limit is refused unread; the coach counts apart; a minute on the student writes again")
    func limitPerMinute() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (_, feedbackId) = try await daemon.answeredRecording(client)
            let comments = "/v1/feedback/\(feedbackId)/comments"
            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            // Ten questions two seconds apart: 0 s … 18 s.
            for index in 0..<10 {
                let asked = try await client.execute(uri: comments, method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"text": "Question \#(index)?"}"#))
                #expect(asked.status == .created)
                daemon.clock.advance(by: 2)
            }
            // At 20 s the first (0 s) leaves the window at 60 s.
            let limited = try await client.execute(uri: comments, method: .post, headers: json, body: ByteBuffer(string: #"{"text": "And?"}"#))
            #expect(limited.status == .tooManyRequests && limited.json?["code"] as? String == "too_many_comments")
            #expect(limited.headers[.retryAfter] == "40" && limited.json?["retry_after_seconds"] as? Int == 40)
            #expect(limited.json?["limit"] as? Int == 10)
            #expect(try questionsAsked(daemon) == 10, "the refused comment tells the coach nothing")

            // A voice question over the limit is refused before its body is read: nothing is received, encoded or kept.
            let voice = try await client.execute(uri: comments, method: .post,
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(voice.status == .tooManyRequests && voice.json?["code"] as? String == "too_many_comments")
            #expect(daemon.runtime.stateDirectory.artifactStore.allFiles().filter { $0.hasPrefix("comments/") }.isEmpty)
            #expect(daemon.stagingFiles().isEmpty)

            // The coach writes under their own count.
            let answered = try await client.execute(uri: comments, method: .post,
                                                    headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]),
                                                    body: ByteBuffer(string: #"{"text": "Six counts."}"#))
            #expect(answered.status == .created)

            // At 60 s the first question has left the window: one more, then 2 s until the next leaves.
            daemon.clock.advance(by: 40)
            let again = try await client.execute(uri: comments, method: .post, headers: json, body: ByteBuffer(string: #"{"text": "Thanks!"}"#))
            #expect(again.status == .created)
            let next = try await client.execute(uri: comments, method: .post, headers: json, body: ByteBuffer(string: #"{"text": "One more?"}"#))
            #expect(next.status == .tooManyRequests && next.headers[.retryAfter] == "2")
        }
    }

    /// On separate connections, as `UploadRouteTests.concurrentUploads` (the live test client
    /// has one connection and would hand the server the requests one after another).
    @Test("thirty simultaneous comments by one student: exactly ten 201 and twenty 429, ten question_asked events")
    func concurrentComments() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (_, feedbackId) = try await daemon.answeredRecording(client)
            let port = client.port
            let token = try await daemon.token(.student, "S1001")
            let statuses = try await withThrowingTaskGroup(of: (status: Int, retryAfter: Int?).self) { group in
                for index in 0..<30 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/feedback/\(feedbackId)/comments")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "Bearer \(token)")
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.body = .bytes(ByteBuffer(string: #"{"text": "Spam \#(index)"}"#))
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        return (Int(response.status.code), response.headers.first(name: "Retry-After").flatMap(Int.init))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Every request is 201 or 429: none may fail for racing the others (on PostgreSQL
            // they once did, as a 500 after ten serialization failures; now they wait their turn).
            let seen = statuses.map(\.status).sorted()
            #expect(statuses.filter { $0.status == 201 }.count == 10, "\(seen)")
            let limited = statuses.filter { $0.status == 429 }
            #expect(limited.count == 20 && limited.allSatisfy { $0.retryAfter == 60 }, "\(seen)")
            #expect(try questionsAsked(daemon) == 10)
        }
        // Counted from the table, not held in memory: the database alone, 59 s on, still says no.
        let refusal = try await daemon.runtime.database.commentRateRefusal(author: .student, authorId: "S1001", maxPerMinute: 10,
                                                                           now: daemon.clock.now.addingTimeInterval(59))
        #expect(refusal?.code == "too_many_comments")
    }
}
