import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// The back office over HTTP (DESIGN §11). The daemon lives on Sunday 22 November 2026, 10:00
/// in New York: week 12 of fall 2026 is open, week 11's deadline (Friday 20 November 23:59:59)
/// has passed. S1001 and S1003 are coached by C01, S1002 by C02 (config/students.csv).
@Suite("The back office over HTTP: each action's effect on the rules, its notices and its audit row")
struct BackOfficeRouteTests {
    private func send(_ client: LiveClient, _ daemon: TestDaemon, _ method: HTTPRequest.Method, _ uri: String,
                      _ body: String, as role: Role = .ops, _ subject: String = "amina") async throws -> LiveAnswer {
        try await client.execute(uri: uri, method: method, headers: try await daemon.headers(role, subject, [.contentType: "application/json"]),
                                 body: ByteBuffer(string: body))
    }

    private func get(_ client: LiveClient, _ daemon: TestDaemon, _ uri: String, as role: Role = .ops,
                     _ subject: String = "amina") async throws -> LiveAnswer {
        try await client.execute(uri: uri, method: .get, headers: try await daemon.headers(role, subject))
    }

    private func upload(_ client: LiveClient, _ daemon: TestDaemon, _ student: String, week: Int) async throws -> LiveAnswer {
        try await client.execute(uri: "/v1/students/\(student)/weeks/\(week)/submissions", method: .post,
                                 headers: try await daemon.headers(.student, student, [.contentType: "audio/ogg"]),
                                 body: try TestDaemon.fixture("speech.opus"))
    }

    private func uploaded(_ client: LiveClient, _ daemon: TestDaemon, _ student: String, week: Int) async throws -> String {
        let response = try await upload(client, daemon, student, week: week)
        let id = try #require(response.json?["id"] as? String, "\(String(buffer: response.body))")
        #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
        return id
    }

    private func week(_ number: Int, of timeline: LiveAnswer) -> [String: Any]? {
        (timeline.json?["weeks"] as? [[String: Any]])?.first { $0["number"] as? Int == number }
    }

    private func eventTypes(_ client: LiveClient, _ daemon: TestDaemon, _ student: String) async throws -> [[String: Any]] {
        let feed = try await get(client, daemon, "/v1/students/\(student)/events", as: .student, student)
        return feed.json?["events"] as? [[String: Any]] ?? []
    }

    private func queue(_ client: LiveClient, _ daemon: TestDaemon, _ coach: String) async throws -> [String] {
        let answer = try await get(client, daemon, "/v1/coaches/\(coach)/queue", as: .coach, coach)
        return (answer.json?["items"] as? [[String: Any]] ?? []).compactMap { ($0["submission"] as? [String: Any])?["id"] as? String }
    }

    @Test("An extension: the week is open again until the new deadline, not behind, not late; the student is told; audited")
    func extensionMovesTheDeadline() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let before = try await get(client, daemon, "/v1/students/S1001/timeline")
            #expect(week(11, of: before)?["state"] as? String == "late")
            let behind = try #require(before.json?["behind_count"] as? Int)

            let uri = "/v1/students/S1001/extensions"
            let made = try await send(client, daemon, .post, uri, #"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "Ill with flu, note from parent"}"#)
            #expect(made.status == .created, "\(String(buffer: made.body))")
            #expect(made.json?["action"] as? String == "deadline_extended" && made.json?["actor"] as? String == "amina")
            #expect(made.json?["reason"] as? String == "Ill with flu, note from parent")
            #expect((made.json?["before"] as? [String: Any])?["due_at"] as? String == "2026-11-21T04:59:59Z")
            #expect((made.json?["after"] as? [String: Any])?["due_at"] as? String == "2026-11-25T04:59:00Z")

            let after = try await get(client, daemon, "/v1/students/S1001/timeline")
            #expect(week(11, of: after)?["state"] as? String == "open")
            #expect(week(11, of: after)?["due_at"] as? String == "2026-11-25T04:59:00Z")
            #expect(after.json?["behind_count"] as? Int == behind - 1)
            let recorded = try await upload(client, daemon, "S1001", week: 11)
            #expect(recorded.status == .created && recorded.json?["late"] as? Bool == false, "\(String(buffer: recorded.body))")
            let told = try await eventTypes(client, daemon, "S1001").filter { $0["type"] as? String == "deadline_extended" }
            #expect(told.count == 1)
            #expect((told.first?["message"] as? String)?.contains("Tuesday 24 November, 23:59 EST") == true, "\(told)")

            // Refused, each with its code, and none of them wrote anything.
            for (body, status, code) in [
                (#"{"week": 11, "due_at": "2026-11-20T12:00:00Z", "reason": "x"}"#, HTTPResponse.Status.unprocessableContent, "extension_not_later"),
                (#"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00"}"#, .unprocessableContent, "reason_required"),
                (#"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "   "}"#, .unprocessableContent, "reason_required"),
                (#"{"week": "assessment", "due_at": "2026-11-24T23:59:00-05:00", "reason": "x"}"#, .unprocessableContent, "invalid_week"),
                (#"{"week": 16, "due_at": "2026-11-24T23:59:00-05:00", "reason": "x"}"#, .unprocessableContent, "invalid_week"),
                (#"{"week": 11, "due_at": "next tuesday", "reason": "x"}"#, .unprocessableContent, "invalid_due_at"),
                (#"{"week": 11, "due_at": "2031-01-01T00:00:00Z", "reason": "x"}"#, .unprocessableContent, "extension_too_far"),
                (#"{"week": 11, "due": "2026-11-24T23:59:00-05:00", "reason": "x"}"#, .badRequest, "invalid_body"),
            ] {
                let refused = try await send(client, daemon, .post, uri, body)
                #expect(refused.status == status && refused.json?["code"] as? String == code, "\(body): \(String(buffer: refused.body))")
            }
            let unknown = try await send(client, daemon, .post, "/v1/students/S9999/extensions",
                                         #"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "x"}"#)
            #expect(unknown.status == .notFound && unknown.json?["code"] as? String == "unknown_student")

            let audit = try await get(client, daemon, "/v1/audit?student=S1001")
            let entries = try #require(audit.json?["entries"] as? [[String: Any]])
            #expect(entries.filter { $0["action"] as? String == "deadline_extended" }.count == 1)
            #expect(entries.first?["action"] as? String == "deadline_extended", "newest first")
            // The programme's own records are in the log too: the roster import enrolled S1001.
            #expect(entries.contains { $0["action"] as? String == "enrolled" && $0["actor"] as? String == "roster" && $0["reason"] is NSNull })
        }
    }

    @Test("Attempt grants: used only once the window is full, the earliest to expire first; a withdrawal gives it back")
    func grants() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            _ = try await uploaded(client, daemon, "S1002", week: 12)
            _ = try await uploaded(client, daemon, "S1002", week: 11)
            #expect(try await upload(client, daemon, "S1002", week: 10).status == .tooManyRequests)

            let uri = "/v1/students/S1002/attempt-grants"
            let later = try await send(client, daemon, .post, uri, #"{"count": 1, "expires_at": "2026-11-29T00:00:00Z", "reason": "Lost two weeks to a family emergency"}"#)
            #expect(later.status == .created, "\(String(buffer: later.body))")
            let sooner = try await send(client, daemon, .post, uri, #"{"count": 1, "expires_at": "2026-11-25T00:00:00Z", "reason": "And one more"}"#)
            let soonerId = try #require((sooner.json?["after"] as? [String: Any])?["grant_id"] as? String)
            let attempts = try #require(try await get(client, daemon, "/v1/students/S1002/timeline").json?["attempts"] as? [String: Any])
            #expect(attempts["remaining"] as? Int == 2 && attempts["granted"] as? Int == 2 && attempts["used"] as? Int == 2)
            #expect(attempts["next_attempt_at"] is NSNull)

            let third = try await uploaded(client, daemon, "S1002", week: 10)
            #expect(try await daemon.runtime.database.submission(id: third)?.grantId == soonerId)
            let fourth = try await uploaded(client, daemon, "S1002", week: 9)
            #expect(try await daemon.runtime.database.submission(id: fourth)?.grantId != soonerId)
            let fifth = try await upload(client, daemon, "S1002", week: 8)
            #expect(fifth.status == .tooManyRequests && fifth.json?["code"] as? String == "attempt_limit")

            // Withdrawn, the recording gives its grant back.
            let withdrawn = try await client.execute(uri: "/v1/submissions/\(third)", method: .delete,
                                                     headers: try await daemon.headers(.student, "S1002"))
            #expect(withdrawn.status == .ok, "\(String(buffer: withdrawn.body))")
            let back = try #require(try await get(client, daemon, "/v1/students/S1002/timeline").json?["attempts"] as? [String: Any])
            #expect(back["remaining"] as? Int == 1 && back["granted"] as? Int == 1)
            #expect(try await upload(client, daemon, "S1002", week: 8).status == .created)
            // Past its expiry a grant is not used.
            daemon.clock.advance(by: 7 * 86_400)
            #expect(try await eventTypes(client, daemon, "S1002").filter { $0["type"] as? String == "attempts_granted" }.count == 2)

            for (body, code) in [(#"{"count": 0, "expires_at": "2026-11-29T00:00:00Z", "reason": "x"}"#, "invalid_count"),
                                 (#"{"count": 11, "expires_at": "2026-11-29T00:00:00Z", "reason": "x"}"#, "invalid_count"),
                                 (#"{"count": true, "expires_at": "2026-11-29T00:00:00Z", "reason": "x"}"#, "invalid_count"),
                                 (#"{"count": 1, "expires_at": "2026-11-01T00:00:00Z", "reason": "x"}"#, "expiry_not_future")] {
                let refused = try await send(client, daemon, .post, uri, body)
                #expect(refused.status == .unprocessableContent && refused.json?["code"] as? String == code, "\(body)")
            }
            let audit = try await get(client, daemon, "/v1/audit?student=S1002&limit=1")
            #expect((audit.json?["entries"] as? [[String: Any]])?.first?["reason"] as? String == "And one more")
            let next = try #require(audit.json?["next"] as? String)
            let older = try await get(client, daemon, next)
            #expect((older.json?["entries"] as? [[String: Any]])?.first?["reason"] as? String == "Lost two weeks to a family emergency")
            #expect(try await get(client, daemon, "/v1/audit?cursor=not-ours").json?["code"] as? String == "invalid_cursor")
        }
    }

    @Test("Moving a misfiled reply: it answers the right recording, the other waits again, both students told; not a result")
    func moveReply() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let (wrong, feedbackId) = try await daemon.answeredRecording(client)
            let right = try await uploaded(client, daemon, "S1003", week: 12)
            let uri = "/v1/feedback/\(feedbackId)/move"
            let moved = try await send(client, daemon, .post, uri, "{\"submission_id\": \"\(right)\", \"reason\": \"Recorded for Zaynab, filed under Aisha\"}")
            #expect(moved.status == .created, "\(String(buffer: moved.body))")
            #expect(moved.json?["student_id"] as? String == "S1003" && moved.json?["other_student_id"] as? String == "S1001")
            #expect(try await daemon.runtime.database.submission(id: wrong)?.state == .awaitingFeedback)
            #expect(try await daemon.runtime.database.submission(id: right)?.state == .feedbackReady)
            #expect(try await get(client, daemon, "/v1/feedback/\(feedbackId)/audio", as: .student, "S1001").status == .notFound)
            #expect(try await get(client, daemon, "/v1/feedback/\(feedbackId)/audio", as: .student, "S1003").status == .ok)
            #expect(try await queue(client, daemon, "C01").contains(wrong))
            #expect(try await eventTypes(client, daemon, "S1001").contains { $0["type"] as? String == "feedback_moved" })
            #expect(try await eventTypes(client, daemon, "S1003").contains {
                $0["type"] as? String == "feedback_ready" && $0["feedback_id"] as? String == feedbackId
            })

            #expect(try await send(client, daemon, .post, uri, "{\"submission_id\": \"\(right)\", \"reason\": \"again\"}").json?["code"] as? String
                    == "same_submission")
            #expect(try await send(client, daemon, .post, uri, #"{"submission_id": "sub_nothere", "reason": "x"}"#).status == .notFound)
            #expect(try await send(client, daemon, .post, "/v1/feedback/fb_nothere/move", "{\"submission_id\": \"\(wrong)\", \"reason\": \"x\"}")
                .json?["code"] as? String == "unknown_feedback")
            try await daemon.runtime.database.engine.write { db in
                try db.execute(sql: "UPDATE feedback SET result = 'pass' WHERE id = ?", arguments: [feedbackId])
            }
            let result = try await send(client, daemon, .post, uri, "{\"submission_id\": \"\(wrong)\", \"reason\": \"back\"}")
            #expect(result.status == .conflict && result.json?["code"] as? String == "feedback_has_result")
            let audit = try await get(client, daemon, "/v1/audit?student=S1001").json?["entries"] as? [[String: Any]] ?? []
            #expect(audit.filter { $0["action"] as? String == "feedback_moved" }.count == 1, "the student it left sees it too")
        }
    }

    @Test("An enrolment change: new coach and level, recordings keep what they were recited for; paused and left refuse uploads")
    func enrolmentChange() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let recorded = try await uploaded(client, daemon, "S1001", week: 12)
            let l1Title = try #require(week(12, of: try await get(client, daemon, "/v1/students/S1001/timeline"))?["title"] as? String)
            let uri = "/v1/students/S1001/enrolment"
            let changed = try await send(client, daemon, .put, uri, #"{"coach_id": "C02", "level_id": "L2", "reason": "Reassessed: reads at level 2"}"#)
            #expect(changed.status == .ok, "\(String(buffer: changed.body))")
            #expect((changed.json?["before"] as? [String: Any])?["level_id"] as? String == "L1")
            #expect((changed.json?["after"] as? [String: Any])?["coach_id"] as? String == "C02")

            let timeline = try await get(client, daemon, "/v1/students/S1001/timeline")
            #expect((timeline.json?["level"] as? [String: Any])?["id"] as? String == "L2")
            #expect((timeline.json?["coach"] as? [String: Any])?["id"] as? String == "C02")
            let week12 = try #require(week(12, of: timeline))
            #expect(week12["title"] as? String != l1Title, "the week now reads as level 2's")
            let kept = try #require((week12["submissions"] as? [[String: Any]])?.first)
            #expect(kept["title"] as? String == l1Title && kept["level_id"] as? String == "L1")
            #expect(try await queue(client, daemon, "C02").contains(recorded))
            #expect(try await !queue(client, daemon, "C01").contains(recorded))
            // The former coach still reads what was theirs; a coach who never had the student does not.
            #expect(try await get(client, daemon, "/v1/submissions/\(recorded)", as: .coach, "C01").status == .ok)
            #expect(try await get(client, daemon, "/v1/students/S1001/timeline", as: .coach, "C01").status == .ok)
            #expect(try await get(client, daemon, "/v1/students/S1001/timeline", as: .coach, "C03").status == .notFound)

            #expect(try await send(client, daemon, .put, uri, #"{"state": "paused", "reason": "Travelling until January"}"#).status == .ok)
            let paused = try await upload(client, daemon, "S1001", week: 11)
            #expect(paused.status == .conflict && paused.json?["code"] as? String == "enrolment_paused")
            let again = try await send(client, daemon, .put, uri, #"{"state": "paused", "reason": "twice"}"#)
            #expect(again.status == .conflict && again.json?["code"] as? String == "no_change")
            #expect(try await send(client, daemon, .put, uri, #"{"state": "left", "reason": "Moved abroad"}"#).status == .ok)
            #expect(try await upload(client, daemon, "S1001", week: 11).json?["code"] as? String == "enrolment_left")
            #expect(try await send(client, daemon, .put, uri, #"{"state": "gone", "reason": "x"}"#).json?["code"] as? String == "invalid_state")
            #expect(try await send(client, daemon, .put, uri, #"{"reason": "x"}"#).json?["code"] as? String == "invalid_body")
            #expect(try await send(client, daemon, .put, uri, #"{"coach_id": "C99", "reason": "x"}"#).json?["code"] as? String == "unknown_coach")
            let keys = try await eventTypes(client, daemon, "S1001").filter { $0["type"] as? String == "enrolment_changed" }.map { $0["message_key"] as? String }
            #expect(keys == ["enrolment_changed.coach", "enrolment_changed.level", "enrolment_changed.paused", "enrolment_changed.left"])

            let audit = try await get(client, daemon, "/v1/audit?student=S1001").json?["entries"] as? [[String: Any]] ?? []
            #expect(audit.filter { $0["action"] as? String == "enrolment_changed" }.count == 3)
            // The enrolment history rows of these changes are listed once, from their audit row.
            #expect(!audit.contains { ["coach_changed", "level_changed", "paused", "left"].contains($0["action"] as? String) })
            let byCoach = try await get(client, daemon, "/v1/audit?coach=C01").json?["entries"] as? [[String: Any]] ?? []
            #expect(byCoach.contains { $0["action"] as? String == "enrolment_changed" && $0["other_coach_id"] as? String == "C01" })
        }
    }

    @Test("Cover: the covering coach gets the queue, the replies and the events until it ends; the covered coach still reads")
    func cover() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let waiting = try await uploaded(client, daemon, "S1001", week: 12)
            let uri = "/v1/coaches/C01/cover"
            let made = try await send(client, daemon, .post, uri, #"{"covering_coach_id": "C02", "until": "2026-11-25T00:00:00Z", "reason": "C01 on leave"}"#)
            #expect(made.status == .created, "\(String(buffer: made.body))")
            #expect(try await queue(client, daemon, "C02").contains(waiting))
            #expect(try await !queue(client, daemon, "C01").contains(waiting))
            #expect(try await get(client, daemon, "/v1/submissions/\(waiting)", as: .coach, "C01").status == .ok)
            let coverEvents = try await get(client, daemon, "/v1/coaches/C02/events", as: .coach, "C02").json?["events"] as? [[String: Any]] ?? []
            #expect(coverEvents.contains { $0["type"] as? String == "cover_started" })

            // A recording made during the cover: its review notice goes to C02.
            let during = try await uploaded(client, daemon, "S1003", week: 12)
            #expect(await daemon.eventually {
                try daemon.runtime.database.engine.read { db in
                    try String.fetchOne(db, sql: "SELECT recipientId FROM event WHERE type = 'submission_ready_for_review' AND \(db.jsonText("payload", member: "submission_id")) = ?",
                                        arguments: [during])
                } == "C02"
            })
            let reply = try await client.execute(uri: "/v1/submissions/\(waiting)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C02", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(reply.status == .created || reply.status == .accepted, "\(String(buffer: reply.body))")
            let byC01 = try await client.execute(uri: "/v1/submissions/\(during)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(byC01.status == .forbidden || byC01.status == .notFound, "the covered coach does not answer during the cover")

            #expect(try await send(client, daemon, .post, uri, #"{"covering_coach_id": "C01", "until": "2026-11-25T00:00:00Z", "reason": "x"}"#)
                .json?["code"] as? String == "cover_self")
            #expect(try await send(client, daemon, .post, "/v1/coaches/C99/cover", #"{"covering_coach_id": "C02", "until": "2026-11-25T00:00:00Z", "reason": "x"}"#)
                .status == .notFound)
            // At its end the work is C01's again.
            daemon.clock.set(Date(timeIntervalSince1970: 1_795_910_400))
            #expect(try await queue(client, daemon, "C01").contains(during))
            #expect(try await !queue(client, daemon, "C02").contains(during))
            let ended = try await send(client, daemon, .post, uri, #"{"covering_coach_id": "C02", "until": "2026-11-20T00:00:00Z", "reason": "x"}"#)
            #expect(ended.status == .conflict && ended.json?["code"] as? String == "no_cover")
        }
    }

    @Test("Only operations: a student and a coach are refused every back-office route before the body is read")
    func accessMatrix() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let routes: [(HTTPRequest.Method, String)] = [
                (.post, "/v1/students/S1001/extensions"), (.post, "/v1/students/S1001/attempt-grants"), (.put, "/v1/students/S1001/enrolment"),
                (.post, "/v1/feedback/fb_x/move"), (.post, "/v1/coaches/C01/cover"), (.get, "/v1/audit"),
            ]
            for (method, uri) in routes {
                for (role, subject) in [(Role.student, "S1001"), (.coach, "C01"), (.coach, "C02")] {
                    let response = try await send(client, daemon, method, uri, #"{"reason": "x"}"#, as: role, subject)
                    #expect(response.status == .forbidden, "\(role) \(subject) \(method) \(uri)")
                }
                let anonymous = try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"])
                #expect(anonymous.status == .unauthorized, "\(method) \(uri)")
            }
            #expect(try await get(client, daemon, "/v1/audit").status == .ok)
        }
    }
}
