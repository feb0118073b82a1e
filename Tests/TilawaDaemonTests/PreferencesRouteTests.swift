import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("A student's preferences over HTTP: their zone in every sentence, their categories")
struct PreferencesRouteTests {
    @Test("PUT a zone: refusals and the timeline speak it; members left out stay; bad bodies, zones and callers are refused")
    func zoneAndRefusals() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let uri = "/v1/students/S1001/preferences"
            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            let start = try await client.execute(uri: uri, method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(start.status == .ok)
            #expect(start.json?["time_zone"] as? String == "America/New_York" && start.json?["time_zone_source"] as? String == "programme")

            let put = try await client.execute(uri: uri, method: .put, headers: json,
                                               body: ByteBuffer(string: #"{"time_zone": "Asia/Jakarta", "push": {"deadlines": false}}"#))
            #expect(put.status == .ok)
            #expect(put.json?["time_zone"] as? String == "Asia/Jakarta" && put.json?["time_zone_source"] as? String == "student")
            #expect((put.json?["push"] as? [String: Bool]) == ["feedback": true, "deadlines": false, "announcements": true, "questions": true])
            // Only push changes: the zone stays.
            let again = try await client.execute(uri: uri, method: .put, headers: json, body: ByteBuffer(string: #"{"push": {"feedback": false}}"#))
            #expect(again.json?["time_zone"] as? String == "Asia/Jakarta")
            #expect((again.json?["push"] as? [String: Bool])?["deadlines"] == false)

            // A week not open yet is refused with its unlock written in Jakarta's time.
            let early = try await client.execute(uri: "/v1/students/S1001/weeks/15/submissions", method: .post,
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(early.status == .conflict)
            let detail = try #require(early.json?["detail"] as? String)
            #expect(detail.contains(" WIB"), "\(detail)")
            #expect(detail.contains(", 12:00 WIB") || detail.contains(", 11:00 WIB"), "Saturday 00:00 in New York is noon or 11:00 in Jakarta: \(detail)")

            for (body, code) in [(#"{"time_zone": "EST"}"#, "invalid_time_zone"), (#"{"time_zone": "Mars/Olympus"}"#, "invalid_time_zone"),
                                 (#"{"push": {"deadlines": 0}}"#, "invalid_body"), (#"{"push": {"sms": true}}"#, "invalid_body"),
                                 (#"{"zone": "Asia/Dubai"}"#, "invalid_body"), (#"[]"#, "invalid_body"), (#"{"time_zone": 7}"#, "invalid_body")] {
                let refused = try await client.execute(uri: uri, method: .put, headers: json, body: ByteBuffer(string: body))
                #expect(refused.json?["code"] as? String == code, "\(body)")
            }
            #expect(try await client.execute(uri: uri, method: .get, headers: try await daemon.headers(.coach, "C01")).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/students/S1002/preferences", method: .get,
                                             headers: try await daemon.headers(.student, "S1001")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/students/S9999/preferences", method: .get,
                                             headers: try await daemon.headers(.ops, "ops")).status == .notFound)
            // Nothing refused changed anything.
            let end = try await client.execute(uri: uri, method: .get, headers: try await daemon.headers(.ops, "ops"))
            #expect(end.json?["time_zone"] as? String == "Asia/Jakarta")
            // Cleared, the programme's zone is back.
            let cleared = try await client.execute(uri: uri, method: .put, headers: json, body: ByteBuffer(string: #"{"time_zone": null}"#))
            #expect(cleared.json?["time_zone"] as? String == "America/New_York")
        }
    }

    @Test("quiet hours and reminder time of one's own: set, shown, refused when malformed, null back to the programme's; the next reminder comes at the chosen hour")
    func quietHoursAndReminderTime() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let uri = "/v1/students/S1001/preferences"
            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            let start = try await client.execute(uri: uri, method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(start.json?["quiet_hours"] is NSNull && start.json?["reminder_time"] is NSNull, "the programme's")

            let put = try await client.execute(uri: uri, method: .put, headers: json,
                                               body: ByteBuffer(string: #"{"quiet_hours": "21:30-06:00", "reminder_time": "07:15"}"#))
            #expect(put.status == .ok && put.json?["quiet_hours"] as? String == "21:30-06:00" && put.json?["reminder_time"] as? String == "07:15",
                    "\(String(buffer: put.body))")
            for (body, code) in [(#"{"quiet_hours": "22:00"}"#, "invalid_quiet_hours"), (#"{"quiet_hours": "07:00-07:00"}"#, "invalid_quiet_hours"),
                                 (#"{"quiet_hours": "25:00-07:00"}"#, "invalid_quiet_hours"), (#"{"quiet_hours": 22}"#, "invalid_quiet_hours"),
                                 (#"{"reminder_time": "7pm"}"#, "invalid_reminder_time"), (#"{"reminder_time": "24:00"}"#, "invalid_reminder_time")] {
                let refused = try await client.execute(uri: uri, method: .put, headers: json, body: ByteBuffer(string: body))
                #expect(refused.status == .unprocessableContent && refused.json?["code"] as? String == code, "\(body): \(String(buffer: refused.body))")
            }
            // Week 12's reminders (deadline Friday 27 November 23:59 New York) come at 07:15, not 18:00.
            // The programme's ticks, every 15 minutes from Sunday 10:00 to past Friday's deadline.
            var now = daemon.clock.now
            while now < daemon.clock.now.addingTimeInterval(6 * 86_400) {
                _ = try await daemon.runtime.database.recordScheduledNotices(policy: daemon.runtime.policy, now: now)
                now = now.addingTimeInterval(15 * 60)
            }
            let sent = try await daemon.runtime.database.engine.read { db in
                try Date.fetchAll(db, sql: "SELECT occurredAt FROM event WHERE studentId = 'S1001' AND type = 'deadline_reminder' ORDER BY seq")
            }
            var newYork = Calendar(identifier: .gregorian)
            newYork.timeZone = try #require(TimeZone(identifier: "America/New_York"))
            #expect(sent.map { newYork.dateComponents([.weekday, .hour, .minute], from: $0) }.map { "\($0.weekday!) \($0.hour!):\($0.minute!)" }
                    == ["4 7:15", "5 7:15"], "Wednesday and Thursday at 07:15: \(sent)")

            let cleared = try await client.execute(uri: uri, method: .put, headers: json,
                                                   body: ByteBuffer(string: #"{"quiet_hours": null, "reminder_time": null}"#))
            #expect(cleared.json?["quiet_hours"] is NSNull && cleared.json?["reminder_time"] is NSNull)
            let none = try await client.execute(uri: uri, method: .put, headers: json, body: ByteBuffer(string: #"{"quiet_hours": "none"}"#))
            #expect(none.json?["quiet_hours"] as? String == "none")
        }
    }

}
