import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Announcements from the programme")
struct AnnouncementTests {
    func announce(_ client: LiveClient, _ daemon: TestDaemon, _ body: String, as role: Role = .ops) async throws -> LiveAnswer {
        try await client.execute(uri: "/v1/announcements", method: .post,
                                 headers: try await daemon.headers(role, role == .ops ? "ops" : "S1001", [.contentType: "application/json"]),
                                 body: ByteBuffer(string: body))
    }

    /// The `announcement` events of `student`'s feed.
    func announcements(_ daemon: TestDaemon, _ student: String) async throws -> [[String: Any]] {
        let events = try await daemon.runtime.database.engine.read { db in
            try Data.fetchAll(db, sql: "SELECT payload FROM event WHERE studentId = ? AND type = 'announcement' ORDER BY seq", arguments: [student])
        }
        return events.compactMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] }
    }

    @Test("to everyone now: each enrolled student gets one announcement event, pushed, linked, once; a level's reaches only that level")
    func publishedNow() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let answer = try await announce(client, daemon, #"{"title": "No class on Friday", "body": "The mosque is closed for repairs; record at home.", "audience": {"all": true}}"#)
            #expect(answer.status == .accepted && answer.json?["state"] as? String == "published", "\(String(describing: answer.json))")
            let reached = try #require(answer.json?["recipients"] as? Int)
            let enrolled = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT studentId) FROM enrolment") ?? 0
            }
            #expect(reached == enrolled && reached > 1)
            let mine = try await announcements(daemon, "S1001")
            #expect(mine.count == 1)
            let event = try #require(mine.first)
            #expect(event["push"] as? Bool == true && (event["link"] as? String)?.hasPrefix("quranflow://announcements/ann_") == true)
            #expect((event["message"] as? String)?.hasPrefix("No class on Friday: ") == true && event["week"] is NSNull)
            #expect(((event["extra"] as? [String: Any])?["announcement"] as? [String: Any])?["title"] as? String == "No class on Friday")

            // The clock's tick publishes nothing twice.
            #expect(try await daemon.runtime.database.publishDueAnnouncements(now: daemon.clock.now) == 0)
            #expect(try await announcements(daemon, "S1001").count == 1)

            // A level's: S1001 (L1) gets it, S1003 (L2) does not.
            let level = try await announce(client, daemon, #"{"title": "Foundations", "body": "Week 13 is Al-Fil again.", "audience": {"level": "L1"}}"#)
            #expect(level.status == .accepted)
            let l1 = try await announcements(daemon, "S1001"), l2 = try await announcements(daemon, "S1003")
            #expect(l1.count == 2 && l2.count == 1)
        }
    }

    @Test("scheduled: nothing before publish_at, the tick publishes it once after; cancelled before, it never goes out; a published one cannot be cancelled")
    func scheduledAndCancelled() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let later = ISO8601DateFormatter().string(from: daemon.clock.now.addingTimeInterval(3_600))
            let first = try await announce(client, daemon, #"{"title": "Eid", "body": "Eid mubarak.", "audience": {"coach": "C01"}, "publish_at": "\#(later)"}"#)
            #expect(first.status == .accepted && first.json?["state"] as? String == "scheduled" && first.json?["recipients"] is NSNull)
            let firstId = try #require(first.json?["id"] as? String)
            let second = try await announce(client, daemon, #"{"title": "Outage", "body": "Maintenance tonight.", "audience": {"all": true}, "publish_at": "\#(later)"}"#)
            let secondId = try #require(second.json?["id"] as? String)
            #expect(try await daemon.runtime.database.publishDueAnnouncements(now: daemon.clock.now) == 0)
            #expect(try await announcements(daemon, "S1001").isEmpty)

            let ops = try await daemon.headers(.ops, "ops")
            let cancelled = try await client.execute(uri: "/v1/announcements/\(secondId)", method: .delete, headers: ops)
            #expect(cancelled.status == .ok && cancelled.json?["state"] as? String == "cancelled")
            #expect(try await client.execute(uri: "/v1/announcements/\(secondId)", method: .delete, headers: ops).status == .ok, "again: the same")

            daemon.clock.advance(by: 3_601)
            #expect(try await daemon.runtime.database.publishDueAnnouncements(now: daemon.clock.now) > 0)
            #expect(try await daemon.runtime.database.publishDueAnnouncements(now: daemon.clock.now) == 0)
            let s1001 = try await announcements(daemon, "S1001")
            #expect(s1001.count == 1 && s1001.first?["message"] as? String == "Eid: Eid mubarak.", "C01's student, once; not the cancelled one")
            #expect(try await announcements(daemon, "S1002").isEmpty, "S1002's coach is C02")

            let late = try await client.execute(uri: "/v1/announcements/\(firstId)", method: .delete, headers: try await daemon.headers(.ops, "ops"))
            #expect(late.status == .conflict && late.json?["code"] as? String == "already_published")
            #expect(try await client.execute(uri: "/v1/announcements/ann_none", method: .delete,
                                             headers: try await daemon.headers(.ops, "ops")).status == .notFound)
        }
    }

    @Test("ops only; an unknown audience, level or a bad body is refused with its code and writes nothing")
    func refusals() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            #expect(try await announce(client, daemon, #"{"title": "x", "body": "y", "audience": {"all": true}}"#, as: .student).status == .forbidden)
            for (role, subject) in [(Role.student, "S1001"), (.coach, "C01")] {
                let cancel = try await client.execute(uri: "/v1/announcements/ann_x", method: .delete, headers: try await daemon.headers(role, subject))
                #expect(cancel.status == .forbidden && cancel.json?["code"] as? String == "forbidden", "\(role)")
            }
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"title": "x", "body": "y", "audience": {"level": "L9"}}"#, .unprocessableContent, "unknown_level"),
                (#"{"title": "x", "body": "y", "audience": {"everyone": true}}"#, .unprocessableContent, "invalid_audience"),
                (#"{"title": "x", "body": "y", "audience": {"all": true, "level": "L1"}}"#, .unprocessableContent, "invalid_audience"),
                (#"{"title": "", "body": "y", "audience": {"all": true}}"#, .unprocessableContent, "invalid_title"),
                (#"{"title": "x", "body": "y", "audience": {"all": true}, "publish_at": "tomorrow"}"#, .unprocessableContent, "invalid_publish_at"),
                (#"{"title": "x", "body": "y", "audience": {"all": true}, "publish_at": null}"#, .unprocessableContent, "invalid_publish_at"),
                (#"{"title": "x", "body": "y", "audience": {"all": 1}}"#, .unprocessableContent, "invalid_audience"),
                (#"{"title": "x", "body": "y", "audience": "all"}"#, .badRequest, "invalid_body"),
                (#"{"title": "x", "body": "y", "audience": {"all": true}, "pin": true}"#, .badRequest, "invalid_body"),
                (#"{"title": "x"}"#, .badRequest, "invalid_body"),
            ]
            for (body, status, code) in cases {
                let answer = try await announce(client, daemon, body)
                #expect(answer.status == status && answer.json?["code"] as? String == code, "\(body): \(answer.status)")
            }
            #expect(try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM announcement") } == 0)
        }
    }
}
