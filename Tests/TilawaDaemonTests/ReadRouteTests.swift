import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

@Suite("Reading over HTTP: playback, timeline, queue, events, auth matrix")
struct ReadRouteTests {
    /// Uploads one recording for `student` and waits for its encode.
    private func submit(_ daemon: TestDaemon, client: LiveClient, student: String, week: Int = 12) async throws -> String {
        let headers = try await daemon.headers(.student, student, [.contentType: "audio/ogg"])
        let response = try await client.execute(uri: "/v1/students/\(student)/weeks/\(week)/submissions", method: .post,
                                                headers: headers, body: try TestDaemon.fixture("speech.opus"))
        let id = try #require(response.json?["id"] as? String)
        #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
        return id
    }

    @Test("Audio: 200 with ETag, 304 for If-None-Match, 206 for a range, 416 past the end, whole file for multiple ranges")
    func playback() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await submit(daemon, client: client, student: "S1001")
            let headers = try await daemon.headers(.student, "S1001")
            let whole = try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: headers)
            #expect(whole.status == .ok)
            #expect(whole.headers[.contentType] == "audio/ogg")
            let size = whole.body.readableBytes
            #expect(whole.body.getString(at: 0, length: 4) == "OggS")
            let etag = try #require(whole.headers[.eTag])
            var conditional = headers
            conditional[.ifNoneMatch] = etag
            #expect(try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: conditional).status == .notModified)
            var ranged = headers
            ranged[.range] = "bytes=10-19"
            let part = try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: ranged)
            #expect(part.status == .partialContent)
            #expect(part.headers[.contentRange] == "bytes 10-19/\(size)")
            #expect(Data(buffer: part.body) == Data(buffer: whole.body).subdata(in: 10..<20))
            ranged[.range] = "bytes=-5"
            #expect(try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: ranged).body.readableBytes == 5)
            ranged[.range] = "bytes=\(size)-"
            let beyond = try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: ranged)
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(size)")
            ranged[.range] = "bytes=0-1,5-6"
            #expect(try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: ranged).status == .ok)

            let waveform = try await client.execute(uri: "/v1/submissions/\(id)/waveform", method: .get, headers: headers)
            #expect(waveform.status == .ok)
            #expect(waveform.json?["version"] as? Int == 2 && waveform.json?["bits"] as? Int == 8)
        }
    }

    @Test("The auth matrix: every forbidden cell is denied, every allowed one answers")
    func authMatrix() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            // S1001's coach is C01; S1002's is C02 (config/students.csv).
            let id = try await submit(daemon, client: client, student: "S1001")
            let routes = ["/v1/submissions/\(id)", "/v1/submissions/\(id)/audio", "/v1/students/S1001/timeline", "/v1/students/S1001/annotations"]
            let allowed: [(Role, String)] = [(.student, "S1001"), (.coach, "C01"), (.ops, "ops")]
            let denied: [(Role, String)] = [(.student, "S1002"), (.coach, "C02")]
            for route in routes {
                for (role, subject) in allowed {
                    let response = try await client.execute(uri: route, method: .get, headers: try await daemon.headers(role, subject))
                    #expect(response.status == .ok, "\(role) \(subject) \(route)")
                }
                for (role, subject) in denied {
                    let response = try await client.execute(uri: route, method: .get, headers: try await daemon.headers(role, subject))
                    #expect(response.status == .forbidden || response.status == .notFound, "\(role) \(subject) \(route)")
                }
                let anonymous = try await client.execute(uri: route, method: .get)
                #expect(anonymous.status == .unauthorized)
                #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                let expired = try await daemon.api.authority.issue(subject: "S1001", role: .student, ttl: 60, now: daemon.clock.now.addingTimeInterval(-120))
                let stale = try await client.execute(uri: route, method: .get, headers: [.authorization: "Bearer \(expired)"])
                #expect(stale.status == .unauthorized && stale.json?["code"] as? String == "expired_token")
                let foreign = try await TokenAuthority(key: Array(repeating: 9, count: 32))
                    .issue(subject: "S1001", role: .student, ttl: 600, now: daemon.clock.now)
                #expect(try await client.execute(uri: route, method: .get, headers: [.authorization: "Bearer \(foreign)"]).status == .unauthorized)
            }
            // Uploading: only the student themself; coaches and ops cannot (403: no role of theirs
            // ever can); another student is answered as if S1001 did not exist (404).
            for (role, subject, status) in [(Role.student, "S1002", HTTPResponse.Status.notFound), (.coach, "C01", .forbidden), (.ops, "ops", .forbidden)] {
                let response = try await client.execute(uri: "/v1/students/S1001/weeks/11/submissions", method: .post,
                                                        headers: try await daemon.headers(role, subject), body: try TestDaemon.fixture("speech.opus"))
                #expect(response.status == status, "\(role) upload")
            }
            // Annotating: only the coach who answers the recording; another coach is told no
            // such submission, students and ops are forbidden (no role of theirs ever can).
            let mark = ByteBuffer(string: #"{"at_seconds": 1, "kind": "tajweed", "text": "Madd."}"#)
            for (role, subject, status) in [(Role.coach, "C02", HTTPResponse.Status.notFound), (.student, "S1001", .forbidden), (.ops, "ops", .forbidden),
                                             (.coach, "C01", .created)] {
                let response = try await client.execute(uri: "/v1/submissions/\(id)/annotations", method: .post,
                                                        headers: try await daemon.headers(role, subject, [.contentType: "application/json"]), body: mark)
                #expect(response.status == status, "\(role) \(subject) annotate")
                if let created = response.json?["id"] as? String, response.status == .created {
                    for (role, subject, status) in [(Role.coach, "C02", HTTPResponse.Status.notFound), (.student, "S1001", .forbidden),
                                                     (.ops, "ops", .forbidden), (.coach, "C01", .noContent)] {
                        let deleted = try await client.execute(uri: "/v1/annotations/\(created)", method: .delete,
                                                               headers: try await daemon.headers(role, subject))
                        #expect(deleted.status == status, "\(role) \(subject) delete annotation")
                    }
                }
            }
            // Placing: ops and a placing coach (C01); a coach who does not place is forbidden for any id.
            for (role, subject, status) in [(Role.coach, "C02", HTTPResponse.Status.forbidden), (.student, "S1011", .forbidden), (.coach, "C01", .ok)] {
                let response = try await client.execute(uri: "/v1/students/S1011/placement", method: .put,
                                                        headers: try await daemon.headers(role, subject, [.contentType: "application/json"]),
                                                        body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C01"}"#))
                #expect(response.status == status, "\(role) \(subject) place")
            }
            // Queues: a coach sees their own; another coach is told no such coach, students are forbidden.
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: try await daemon.headers(.coach, "C01")).status == .ok)
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: try await daemon.headers(.coach, "C02")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: try await daemon.headers(.student, "S1001")).status == .forbidden)
            // Events: the student's own feed and ops.
            #expect(try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: try await daemon.headers(.student, "S1002")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: try await daemon.headers(.ops, "ops")).status == .ok)

            // Preferences: the student and ops; another student 404, a coach 403 (the desk's session too).
            for (role, subject, status) in [(Role.student, "S1001", HTTPResponse.Status.ok), (.ops, "ops", .ok), (.student, "S1002", .notFound),
                                             (.coach, "C01", .forbidden), (.coach, "C02", .forbidden)] {
                let read = try await client.execute(uri: "/v1/students/S1001/preferences", method: .get, headers: try await daemon.headers(role, subject))
                #expect(read.status == status, "\(role) \(subject) read preferences")
                let change = try await client.execute(uri: "/v1/students/S1001/preferences", method: .put,
                                                      headers: try await daemon.headers(role, subject, [.contentType: "application/json"]),
                                                      body: ByteBuffer(string: #"{"push": {"announcements": true}}"#))
                #expect(change.status == status, "\(role) \(subject) change preferences")
            }
            // A coach's photo: anyone signed in (404 no_photo here: the sample coaches have none); no token 401.
            for (role, subject) in [(Role.student, "S1002"), (.coach, "C02"), (.ops, "ops")] {
                let photo = try await client.execute(uri: "/v1/coaches/C01/photo", method: .get, headers: try await daemon.headers(role, subject))
                #expect(photo.status == .notFound && photo.json?["code"] as? String == "no_photo", "\(role) \(subject) photo")
            }
            #expect(try await client.execute(uri: "/v1/coaches/C01/photo", method: .get).status == .unauthorized)

            // The desk: a session has exactly its coach's rights on the same routes — C01's
            // session reads, C02's is told no such thing (404) — and the desk's own routes.
            let desk = DeskSignInTests()
            let mine = try await desk.signIn(daemon, client, coach: "C01")
            let theirs = try await desk.signIn(daemon, client, coach: "C02")
            for route in routes + ["/v1/coaches/C01/queue"] {
                #expect(try await client.execute(uri: route, method: .get, headers: mine.headers()).status == .ok, "C01's session \(route)")
                #expect(try await client.execute(uri: route, method: .get, headers: theirs.headers()).status == .notFound, "C02's session \(route)")
            }
            let markBySession = try await client.execute(uri: "/v1/submissions/\(id)/annotations", method: .post,
                                                         headers: theirs.headers([.contentType: "application/json"], csrf: true), body: mark)
            #expect(markBySession.status == .notFound, "C02's session annotates C01's student")
            #expect(try await client.execute(uri: "/v1/students/S1001/preferences", method: .get, headers: mine.headers()).status == .forbidden,
                    "a session is a coach: a student's preferences are not theirs")
            #expect(try await client.execute(uri: "/v1/submissions/\(id)/annotations", method: .post,
                                             headers: mine.headers([.contentType: "application/json"]), body: mark).status == .forbidden,
                    "a change without the CSRF token")
            // /desk/session: the cookie's coach, 401 without one; login links: ops alone (a session is a coach).
            #expect(try await client.execute(uri: "/desk/session", method: .get, headers: mine.headers()).status == .ok)
            #expect(try await client.execute(uri: "/desk/session", method: .get).status == .unauthorized)
            for headers in [mine.headers(csrf: true), try await daemon.headers(.coach, "C01"), try await daemon.headers(.student, "S1001")] {
                #expect(try await client.execute(uri: "/v1/coaches/C01/login-links", method: .post, headers: headers).status == .forbidden)
            }
            #expect(try await client.execute(uri: "/v1/coaches/C01/login-links", method: .post, headers: try await daemon.headers(.ops, "ops")).status == .created)
            // /desk/logout: the CSRF token, then 204; /desk/ and its files need no session.
            #expect(try await client.execute(uri: "/desk/logout", method: .post, headers: theirs.headers()).status == .forbidden)
            #expect(try await client.execute(uri: "/desk/logout", method: .post, headers: theirs.headers(csrf: true)).status == .noContent)
            #expect(try await client.execute(uri: "/desk/", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/desk/assets/desk.js", method: .get).status == .ok)
        }
    }

    @Test("Timeline, queue and events tell the same story")
    func timelineQueueEvents() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await submit(daemon, client: client, student: "S1001")
            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: try await daemon.headers(.student, "S1001"))
            let weeks = try #require(timeline.json?["weeks"] as? [[String: Any]])
            #expect(weeks.count == 15)
            #expect(weeks[11]["state"] as? String == "awaiting_feedback")
            #expect(weeks[12]["state"] as? String == "locked")
            #expect(weeks[10]["state"] as? String == "late")
            #expect(timeline.json?["current_week"] as? Int == 12)
            #expect(timeline.json?["phase"] as? String == "active")
            #expect((timeline.json?["attempts"] as? [String: Any])?["used"] as? Int == 1)
            #expect(timeline.json?["behind_count"] as? Int == 11)

            daemon.clock.advance(by: 49 * 3_600)
            let queue = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: try await daemon.headers(.coach, "C01"))
            let items = try #require(queue.json?["items"] as? [[String: Any]])
            #expect((items.first?["submission"] as? [String: Any])?["id"] as? String == id)
            #expect(items.first?["overdue"] as? Bool == true)

            let events = try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: try await daemon.headers(.student, "S1001"))
            let list = try #require(events.json?["events"] as? [[String: Any]])
            // The feed opens with the import's welcome (`enrolled`), then the upload.
            #expect(list.map { $0["type"] as? String } == ["enrolled", "submission_received"])
            #expect((list.last?["week"] as? [String: Any])?["number"] as? Int == 12)
            let cursor = try #require(events.json?["next_cursor"] as? String)
            let after = try await client.execute(uri: "/v1/students/S1001/events?after=\(cursor)", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect((after.json?["events"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("Health, readiness, metrics and the OpenAPI document need no token")
    func operations() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(String(buffer: metrics.body).contains("tilawa_encode_queue_depth"))
            let document = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(String(buffer: document.body).hasPrefix("openapi: 3.1"))
            let unknown = try await client.execute(uri: "/nowhere", method: .get)
            #expect(unknown.status == .notFound && unknown.headers[.contentType] == "application/problem+json")
        }
    }
}
