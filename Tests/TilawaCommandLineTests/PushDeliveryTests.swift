import AsyncHTTPClient
import Crypto
import Foundation
import GRDB
import NIOCore
import Testing
import TilawaTestSupport

/// Pushes to iPhones (issue 45) from a real daemon to an APNs stand-in we start
/// (`Tests/push/apns_server.py`: HTTP/2 over TLS with ALPN h2, a throw-away CA the daemon is
/// told to trust, the provider token's ES256 signature checked with the key's public half).
@Suite("Pushes to APNs: each device once, dead tokens signed out, retries, a refused key stops the channel and loses nothing", .heavy)
struct PushDeliveryTests {
    @Test("""
        An announcement reaches two devices of one student and one of another once each over HTTP/2 with loc-key and badge; \
        a 410 signs the device out; 429 then 200 sends once; the student's own upload pushes nothing; a key APNs refuses stops \
        the channel (status WARNING naming the key) with nothing lost, delivered once the daemon starts with the right key
        """)
    func deliveries() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        let state = bed.state, server = bed.server
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: state.scratch.path("WrongKey.p8"), atomically: true, encoding: .utf8)
        // Only the announcement's sends: the programme's own notices to the same phones (a week
        // fanned out after they registered) are answered 200 and leave the script alone.
        try server.script([APNsTestBed.token(4): ["when": "Eid", "answers": [[410, "Unregistered"]]],
                           APNsTestBed.token(5): ["when": "Eid", "answers": [[429, "TooManyRequests"], [200, ""]]]])
        func environment(key file: String) -> [String: String] { bed.environment(key: file) }
        func issue(_ flag: String, _ id: String) async throws -> String { try await bed.issue(flag, id) }
        let ops = try await issue("--ops", "ops")

        var daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment(key: "AuthKey.p8"))
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        // S1001 two phones, S1002 one, S1003 a token APNs says is gone, S1004 one APNs is busy for once.
        for (student, device, n) in [("S1001", "phone", 1), ("S1001", "tablet", 2), ("S1002", "phone", 3), ("S1003", "old", 4), ("S1004", "phone", 5)] {
            let registered = try await sendJSON("PUT", daemon.port, "/v1/students/\(student)/devices/\(device)", token: try await issue("--student", student),
                                            json: APNsTestBed.device(APNsTestBed.token(n)))
            #expect(registered.0 == 201, "\(student) \(device): \(String(decoding: registered.1, as: UTF8.self))")
        }
        let announced = try await sendJSON("POST", daemon.port, "/v1/announcements", token: ops,
                                       json: #"{"title": "Eid", "body": "No lesson on Saturday.", "audience": {"all": true}}"#)
        #expect(announced.0 == 202, "\(String(decoding: announced.1, as: UTF8.self))")

        // Only the announcements count: the programme's own notices (a week unlocking as the
        // daemon starts) may push too.
        let ofAnnouncement: @Sendable ([String: Any], String) -> Bool = { request, title in
            ((request["payload"] as? [String: Any])?["params"] as? [String: String])?["title"] == title
        }
        let sent: @Sendable ([[String: Any]], String) -> [String] = { requests, title in
            requests.filter { $0["status"] as? Int == 200 && ofAnnouncement($0, title) }.compactMap { $0["token"] as? String }.sorted()
        }
        #expect(await server.settled { sent($0, "Eid").count >= 4 && $0.contains { $0["status"] as? Int == 410 } }, "\(server.requests)\n\(daemon.log)")
        let requests = server.requests
        #expect(sent(requests, "Eid") == [1, 2, 3, 5].map(APNsTestBed.token), "each device once: \(sent(requests, "Eid"))")
        #expect(requests.allSatisfy { $0["http_version"] as? String == "2" }, "HTTP/2 only")
        #expect(requests.filter { $0["token"] as? String == APNsTestBed.token(5) && ofAnnouncement($0, "Eid") }.map { $0["status"] as? Int } == [429, 200],
                "429, then 200, once")
        let first = try #require(requests.first { $0["token"] as? String == APNsTestBed.token(1) && ofAnnouncement($0, "Eid") })
        let aps = try #require((first["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["loc-key"] as? String == "tilawa.announcement")
        #expect(aps["badge"] as? Int ?? 0 >= 1, "the unread count")
        #expect((first["headers"] as? [String: String])?["apns-topic"] == APNsTestBed.topic)
        // The dead token is signed out.
        let s1003 = try await sendJSON("GET", daemon.port, "/v1/students/S1003/devices", token: ops)
        #expect(String(decoding: s1003.1, as: UTF8.self).contains("\"devices\":[]"), "\(String(decoding: s1003.1, as: UTF8.self))")

        // The student's own upload pushes nothing: its event is fanned out past, no delivery made.
        let upload = try await APNsTestBed.uploadAudio("/v1/students/S1001/weeks/12/submissions", bearer: try await issue("--student", "S1001"),
                                                       on: daemon)
        #expect(upload == 201)
        let ownEvent = try #require(try state.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM event WHERE studentId = 'S1001' AND type = 'submission_received'")
        })
        let deadline = ContinuousClock.now + TestTime.hangLimit
        var cursor: Int64 = 0
        while cursor < ownEvent, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            cursor = try state.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'push_cursor'").flatMap { Int64($0) } ?? 0 }
        }
        #expect(cursor >= ownEvent, "fanned out past the upload's event")
        #expect(try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE eventSeq = ?", arguments: [ownEvent]) } == 0)

        // A key APNs refuses: the channel stops, said by status; the announcement waits.
        _ = await daemon.terminate()
        daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment(key: "WrongKey.p8"))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let second = try await sendJSON("POST", daemon.port, "/v1/announcements", token: ops,
                                    json: #"{"title": "Reminder", "body": "Record week 12 today.", "audience": {"all": true}}"#)
        #expect(second.0 == 202)
        #expect(await server.settled { $0.contains { $0["reason"] as? String == "InvalidProviderToken" } }, "\(daemon.log)")
        var status = ""
        for _ in 0..<100 where !status.contains("pushes to iPhones stopped") {
            status = try await state.run(["status"], environment: environment(key: "WrongKey.p8")).stdout
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(status.contains("pushes to iPhones stopped") && status.contains(APNsTestBed.keyId), "\(status)")
        let refusedCount = server.requests.filter { $0["reason"] as? String == "InvalidProviderToken" }.count

        // Fixed: every device gets the second announcement once; nothing was dropped.
        _ = await daemon.terminate()
        #expect(server.requests.filter { $0["reason"] as? String == "InvalidProviderToken" }.count == refusedCount)
        daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment(key: "AuthKey.p8"))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await server.settled { sent($0, "Reminder").count >= 4 }, "\(server.requests.suffix(6))")
        #expect(sent(server.requests, "Reminder") == [1, 2, 3, 5].map(APNsTestBed.token), "\(sent(server.requests, "Reminder"))")
        #expect(sent(server.requests, "Eid") == [1, 2, 3, 5].map(APNsTestBed.token), "the first announcement not sent again")
        // The server logs a request before it answers: the daemon records the last answers a moment later.
        var open = -1
        let recorded = ContinuousClock.now + TestTime.hangLimit
        while open != 0, ContinuousClock.now < recorded {
            open = try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE state <> 'sent' AND state <> 'dropped'") ?? -1 }
            if open != 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(open == 0, "every delivery sent or dropped")
        let healthy = try await state.run(["status"], environment: environment(key: "AuthKey.p8")).stdout
        #expect(!healthy.contains("pushes to iPhones stopped"), "\(healthy)")
        _ = await daemon.terminate()
    }

    @Test("""
        Across a SIGKILL mid-delivery, an announcement reaches two iPhones of one student and one of another once each: the \
        one APNs held is sent again as the daemon starts, with the same apns-id and collapse id (the phone shows it once), \
        and nothing already answered is sent a second time
        """)
    func killedMidDelivery() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        let phone = APNsTestBed.token(1), tablet = APNsTestBed.token(2), other = APNsTestBed.token(3)
        // APNs holds the tablet's first send far longer than the test waits (logged as it arrives).
        try bed.server.script([tablet: ["when": "Eid", "answers": [[200, "", NSNull(), 600]]]])
        var daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.register(.students, "S1001", device: "phone", token: phone, on: daemon) == 201)
        #expect(try await bed.register(.students, "S1001", device: "tablet", token: tablet, on: daemon) == 201)
        #expect(try await bed.register(.students, "S1002", token: other, on: daemon) == 201)
        #expect(try await bed.announce("Eid", on: daemon) == 202)
        // Only the announcement's sends: the programme's own notices to the same phones are answered and left alone.
        let tries: @Sendable ([[String: Any]], String) -> [[String: Any]] = { requests, token in
            requests.filter { $0.apnsToken == token && $0.announcementTitle == "Eid" }
        }
        #expect(await bed.server.settled { requests in [phone, tablet, other].allSatisfy { !tries(requests, $0).isEmpty } }, "\(daemon.log)")
        // The phone's and S1002's are recorded as they are answered, not when the tablet's answer comes.
        let answered = """
            SELECT COUNT(*) FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq
            WHERE event.type = 'announcement' AND pushDelivery.state = 'sent'
              AND ((pushDelivery.ownerId = 'S1001' AND pushDelivery.deviceId = 'phone') OR pushDelivery.ownerId = 'S1002')
            """
        #expect(await eventually { try bed.state.read { db in try Int.fetchOne(db, sql: answered) } == 2 }, "\(daemon.log)")

        _ = daemon.process.signal(SIGKILL)
        _ = daemon.process.waitUntilExit()
        daemon = try bed.serve()
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await bed.server.settled { tries($0, tablet).count >= 2 }, "the tablet's sent again: \(daemon.log)")
        // Given back at start (the dead daemon's claim), not left to run out.
        #expect(daemon.log.contains("pushes a stopped daemon was sending are sent again"), "\(daemon.log)")
        #expect(await bed.settle(), "every delivery answered and recorded")
        let requests = bed.server.requests
        #expect(tries(requests, phone).count == 1 && tries(requests, other).count == 1, "nothing answered is sent twice")
        let held = tries(requests, tablet)
        #expect(held.count == 2 && held.last?.apnsStatus == 200, "\(held.map(\.apnsStatus))")
        let identities = Set(held.map { "\($0.apnsHeader("apns-id") ?? "-") \($0.apnsHeader("apns-collapse-id") ?? "-") \($0.apnsPayload?["event_id"] as? String ?? "-")" })
        #expect(identities.count == 1, "the same apns-id, collapse id and event id: \(identities)")
        #expect(try bed.state.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq
                WHERE event.type = 'announcement' AND pushDelivery.state = 'sent'
                """)
        } == 3, "three deliveries, each sent")
        _ = await daemon.terminate()
    }
}
