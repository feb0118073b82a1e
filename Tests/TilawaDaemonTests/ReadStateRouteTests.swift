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

@Suite("Read and listened state")
struct ReadStateRouteTests {
    /// `count` notifications for `student`, straight into the outbox.
    static func addEvents(_ database: AppDatabase, student: String, count: Int, from start: Date) throws {
        try database.engine.write { db in
            for index in 0..<count {
                let at = start.addingTimeInterval(Double(index))
                let id = IdentifierGenerator.make("evt", now: at)
                let payload = EventPayload(
                    id: id, type: "feedback_ready", recipient: "student", studentId: student, occurredAt: at,
                    week: .init(number: 1 + index % 15, kind: "week", title: "Title", passage: nil), submissionId: nil, feedbackId: nil,
                    coachName: nil, message: "Event \(index).", link: "quranflow://weeks/1")
                var event = EventRecord(id: id, studentId: student, type: payload.type, payload: try payload.jsonData(), occurredAt: at)
                try event.insert(db)
            }
        }
    }

    @Test("newest-first pages of 50 are the forward feed reversed; marking read brings unread_count to 0 and never moves back")
    func pagesAndUnread() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try Self.addEvents(daemon.runtime.database, student: "S1001", count: 120, from: daemon.clock.now)
        try await daemon.application().test(.router) { client in
            let student = try await daemon.headers(.student, "S1001")
            let forward = try await client.execute(uri: "/v1/students/S1001/events?limit=500", method: .get, headers: student)
            let all = (forward.json?["events"] as? [[String: Any]] ?? []).compactMap { $0["cursor"] as? String }
            #expect(all.count == 121, "the import's welcome and 120 more")
            // Nothing read: the read cursor is the feed's start (what "0" was), sealed like every cursor sent.
            let start = EventCursor(key: daemon.api.authority.cursorKey, recipient: .student("S1001")).text(for: 0)
            #expect(forward.json?["unread_count"] as? Int == 121 && forward.json?["read_cursor"] as? String == start)

            var backward: [String] = []
            var cursor = "999999999999999999"
            for _ in 0..<10 {
                let page = try await client.execute(uri: "/v1/students/S1001/events?before=\(cursor)&limit=50", method: .get, headers: student)
                let cursors = (page.json?["events"] as? [[String: Any]] ?? []).compactMap { $0["cursor"] as? String }
                if cursors.isEmpty { break }
                #expect(cursors.count <= 50)
                backward += cursors
                cursor = try #require(page.json?["next_cursor"] as? String)
            }
            #expect(backward == all.reversed())
            let both = try await client.execute(uri: "/v1/students/S1001/events?after=1&before=5", method: .get, headers: student)
            #expect(both.status == .badRequest)

            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            let middle = all[60]
            var read = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                                body: ByteBuffer(string: #"{"cursor": "\#(middle)"}"#))
            #expect(read.status == .ok && read.json?["unread_count"] as? Int == 60 && read.json?["read_cursor"] as? String == middle)
            read = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                            body: ByteBuffer(string: #"{"cursor": "999999999999999999"}"#))
            #expect(read.json?["unread_count"] as? Int == 0 && read.json?["read_cursor"] as? String == all.last)
            read = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                            body: ByteBuffer(string: #"{"cursor": "1"}"#))
            #expect(read.json?["unread_count"] as? Int == 0, "the read position never moves back")
            let coach = try await daemon.headers(.coach, "C01", [.contentType: "application/json"])
            let byCoach = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: coach,
                                                   body: ByteBuffer(string: #"{"cursor": "1"}"#))
            #expect(byCoach.status == .forbidden)
            let bad = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                               body: ByteBuffer(string: #"{"cursor": 5}"#))
            #expect(bad.status == .badRequest)
        }
    }

    @Test("events carry push (false for the student's own recording, which is stored read), one event is read by id, listening reads its feedback_ready; unread_count stays exact with cursor and single reads interleaved")
    func pushAndSingleReads() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let student = try await daemon.headers(.student, "S1001")
            func feed() async throws -> (events: [[String: Any]], unread: Int) {
                let page = try await client.execute(uri: "/v1/students/S1001/events?limit=500", method: .get, headers: student)
                return (page.json?["events"] as? [[String: Any]] ?? [], page.json?["unread_count"] as? Int ?? -1)
            }
            func readOne(_ id: String, as headers: HTTPFields? = nil, student owner: String = "S1001") async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/students/\(owner)/events/\(id)/read", method: .post, headers: headers ?? student)
            }
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            let submissionId = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: submissionId)?.state == .awaitingFeedback })
            let reply = try await client.execute(uri: "/v1/submissions/\(submissionId)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            let feedbackId = try #require(reply.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: submissionId)?.state == .feedbackReady })

            var (events, unread) = try await feed()
            let received = try #require(events.first { $0["type"] as? String == "submission_received" })
            let ready = try #require(events.first { $0["type"] as? String == "feedback_ready" })
            #expect(received["push"] as? Bool == false, "the student's own recording is not pushed to them")
            #expect(ready["push"] as? Bool == true)
            // What the student did themselves is stored read: it never raises the badge.
            #expect(received["read"] as? Bool == true, "the student's own recording is in the feed, already read")
            #expect(events.filter { $0["read"] as? Bool == false }.count == events.count - 1 && unread == events.count - 1)
            let total = events.count

            // One by one: the received notice, already read; reading it again changes nothing.
            let receivedId = try #require(received["id"] as? String)
            #expect(try await readOne(receivedId).json?["unread_count"] as? Int == total - 1)
            #expect(try await readOne(receivedId).json?["unread_count"] as? Int == total - 1)
            (events, unread) = try await feed()
            #expect(events.first { $0["id"] as? String == receivedId }?["read"] as? Bool == true && unread == total - 1)

            // The cursor up to the received notice (already read by itself): nothing is counted twice.
            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            let upTo = try #require(received["cursor"] as? String)
            let before = events.prefix { $0["id"] as? String != receivedId }.count
            let moved = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                                 body: ByteBuffer(string: #"{"cursor": "\#(upTo)"}"#))
            #expect(moved.json?["unread_count"] as? Int == total - 1 - before, "\(String(describing: moved.json))")

            // Listening to the reply reads its feedback_ready, once.
            let listened = try await client.execute(uri: "/v1/feedback/\(feedbackId)/listened", method: .post, headers: student)
            #expect(listened.status == .ok)
            (events, unread) = try await feed()
            #expect(events.first { $0["type"] as? String == "feedback_ready" }?["read"] as? Bool == true)
            #expect(unread == total - 2 - before, "unread \(unread) of \(total)")
            #expect(unread == events.filter { $0["read"] as? Bool == false }.count, "unread_count is the events not read")

            // Not this student's event, or not an event: 404; another role: 403; a malformed id: 400.
            #expect(try await readOne("evt_none").status == .notFound)
            let other = try await readOne(receivedId, as: try await daemon.headers(.student, "S1002"), student: "S1002")
            #expect(other.status == .notFound && other.json?["code"] as? String == "unknown_event")
            #expect(try await readOne(receivedId, as: try await daemon.headers(.coach, "C01")).status == .forbidden)
            #expect(try await readOne("bad.id").status == .badRequest)

            // A coach's feed pushes and has no read state.
            let coachFeed = try await client.execute(uri: "/v1/coaches/C01/events", method: .get, headers: try await daemon.headers(.coach, "C01"))
            let coachEvents = try #require(coachFeed.json?["events"] as? [[String: Any]])
            #expect(!coachEvents.isEmpty && coachEvents.allSatisfy { $0["push"] as? Bool == true && $0["read"] == nil })
        }
    }

    @Test("a reply fetched halfway is not listened; fetched to its last byte (end first, then the start) it is, and its week is complete")
    func listenedByBytes() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (_, feedbackId) = try await daemon.answeredRecording(client)
            let size = try #require(try await daemon.runtime.database.feedback(id: feedbackId)?.audioBytes)
            let audio = "/v1/feedback/\(feedbackId)/audio"
            func listenedAt() async throws -> Date? { try await daemon.runtime.database.feedback(id: feedbackId)?.listenedAt }

            // The coach playing it counts for nothing.
            #expect(try await client.execute(uri: audio, method: .get, headers: try await daemon.headers(.coach, "C01")).status == .ok)
            #expect(try await listenedAt() == nil)
            let half = size / 2
            var ranged = try await daemon.headers(.student, "S1001")
            ranged[.range] = "bytes=\(half)-"
            #expect(try await client.execute(uri: audio, method: .get, headers: ranged).status == .partialContent)
            #expect(try await listenedAt() == nil, "half of it")
            ranged[.range] = "bytes=0-\(half - 1)"
            #expect(try await client.execute(uri: audio, method: .get, headers: ranged).status == .partialContent)
            #expect(await daemon.eventually { try daemon.runtime.database.feedback(id: feedbackId)?.listenedAt != nil })

            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get,
                                                    headers: try await daemon.headers(.student, "S1001"))
            let week12 = try #require((timeline.json?["weeks"] as? [[String: Any]])?[11])
            #expect(week12["state"] as? String == "complete")
            #expect(((week12["feedback"] as? [[String: Any]])?.first)?["listened_at"] as? String != nil)

            // The app may say so too; the first instant stays.
            let first = try await listenedAt()
            let said = try await client.execute(uri: "/v1/feedback/\(feedbackId)/listened", method: .post,
                                                headers: try await daemon.headers(.student, "S1001"))
            #expect(said.status == .ok)
            #expect(try await listenedAt() == first)
            let other = try await client.execute(uri: "/v1/feedback/\(feedbackId)/listened", method: .post,
                                                 headers: try await daemon.headers(.student, "S1002"))
            #expect(other.status == .notFound)
        }
    }
}
