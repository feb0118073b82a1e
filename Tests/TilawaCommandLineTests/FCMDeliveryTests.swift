import Foundation
import GRDB
import Testing
import TilawaTestSupport
import _CryptoExtras

/// Pushes to Android phones (issue 45) from a real daemon to an FCM stand-in we start
/// (`Tests/push/fcm_server.py`: Google's token endpoint, which checks the service account's
/// RS256 assertion with the key's public half, and FCM's HTTP v1 send endpoint, over TLS with
/// a throw-away CA the daemon is told to trust).
@Suite("Pushes to FCM: the service account's token exchanged once and reused, each device once, UNREGISTERED signs out, 429 and 401 retried, a refused account stops the channel and loses nothing", .heavy)
struct FCMDeliveryTests {
    static let keyId = "3f1c0ffee0d15ea5e5", email = "tilawa-push@tilawa-test.iam.gserviceaccount.com", project = "tilawa-test"
    /// Sunday 22 November 2026 15:00 UTC: week 12 of fall 2026 open.
    static let programmeClock = "\(Int(ISO8601DateFormatter().date(from: "2026-11-22T15:00:00Z")!.timeIntervalSince1970)),1"

    /// A service account JSON key as the Firebase console issues it.
    static func account(_ key: _RSA.Signing.PrivateKey, tokenURI: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": project, "private_key_id": keyId, "private_key": key.pkcs8PEMRepresentation,
            "client_email": email, "client_id": "1234567890", "token_uri": tokenURI,
        ])
    }

    /// The stand-in checking a fresh account's key, and that account written to `account.json`.
    static func start(in state: CommandLineStateFixture) async throws -> (PushTestServer, tokenURI: String) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        try key.publicKey.pemRepresentation.write(toFile: state.scratch.path("account-public.pem"), atomically: true, encoding: .utf8)
        let server = try await PushTestServer(script: "fcm_server.py", folder: state.scratch.path("fcm"), arguments: [
            "--public-key", state.scratch.path("account-public.pem"), "--key-id", keyId, "--client-email", email, "--project", project,
        ])
        let tokenURI = "https://127.0.0.1:\(server.port)/token"
        do {
            try account(key, tokenURI: tokenURI).write(to: URL(fileURLWithPath: state.scratch.path("account.json")))
        } catch {
            server.stop()
            throw error
        }
        return (server, tokenURI)
    }

    @Test("""
        An announcement reaches each Android device once with body_loc_key, notification_count, tag and the event id; \
        UNREGISTERED signs the device out; 429 (Retry-After) then 200 and 401 then 200 send once; one token exchange serves \
        every send until FCM refuses it; an account the token endpoint refuses stops the channel (status WARNING naming it) \
        and the waiting notice is delivered once the daemon starts with the right account
        """)
    func deliveries() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let (server, tokenURI) = try await Self.start(in: state)
        defer { server.stop() }
        try Self.account(try _RSA.Signing.PrivateKey(keySize: .bits2048), tokenURI: tokenURI)
            .write(to: URL(fileURLWithPath: state.scratch.path("revoked.json")))
        // Only the announcement's sends: the programme's own notices to the same phones leave the script alone.
        try server.script(["a3": ["when": "Eid", "answers": [[404, "UNREGISTERED"]]],
                           "a4": ["when": "Eid", "answers": [[429, "QUOTA_EXCEEDED", 1], [200, ""]]],
                           "a5": ["when": "Eid", "answers": [[401, "UNAUTHENTICATED"], [200, ""]]]])
        func environment(account file: String) -> [String: String] {
            ["TILAWA_PUSH_FCM_SERVICE_ACCOUNT_FILE": state.scratch.path(file), "TILAWA_PUSH_FCM_ENDPOINT": "https://127.0.0.1:\(server.port)",
             "TILAWA_PUSH_FCM_CA_FILE": server.folder + "/ca.pem", "TILAWA_NOTIFICATIONS_QUIET_HOURS": "none", "TILAWA_TEST_CLOCK": Self.programmeClock]
        }
        func issue(_ flag: String, _ id: String) async throws -> String {
            try await state.run(["token", "issue", flag, id], environment: environment(account: "account.json")).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let ops = try await issue("--ops", "ops")
        var daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment(account: "account.json"))
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        // S1001 two phones; S1003 a token FCM no longer knows; S1004 one FCM is busy for once;
        // S1005 one whose first send finds the access token refused.
        for (student, device, token) in [("S1001", "phone", "a1"), ("S1001", "tablet", "a2"), ("S1003", "old", "a3"), ("S1004", "phone", "a4"),
                                         ("S1005", "phone", "a5")] {
            let registered = try await sendJSON("PUT", daemon.port, "/v1/students/\(student)/devices/\(device)", token: try await issue("--student", student),
                                                json: #"{"platform": "android", "token": "\#(token)", "locale": "ar", "app_version": "3.1.0"}"#)
            #expect(registered.0 == 201, "\(student) \(device): \(String(decoding: registered.1, as: UTF8.self))")
        }
        let announced = try await sendJSON("POST", daemon.port, "/v1/announcements", token: ops,
                                           json: #"{"title": "Eid", "body": "No lesson on Saturday.", "audience": {"all": true}}"#)
        #expect(announced.0 == 202, "\(String(decoding: announced.1, as: UTF8.self))")

        // Only the announcements count: the programme's own notices may push too.
        let ofAnnouncement: @Sendable ([String: Any], String) -> Bool = { request, title in
            let data = (request["message"] as? [String: Any])?["data"] as? [String: String]
            return data?["params"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }?["title"] == title
        }
        let sent: @Sendable ([[String: Any]], String) -> [String] = { requests, title in
            requests.filter { $0["status"] as? Int == 200 && ofAnnouncement($0, title) }.compactMap { $0["token"] as? String }.sorted()
        }
        #expect(await server.settled { sent($0, "Eid").count >= 4 && $0.contains { $0["code"] as? String == "UNREGISTERED" } },
                "\(server.requests)\n\(daemon.log)")
        let requests = server.requests
        #expect(sent(requests, "Eid") == ["a1", "a2", "a4", "a5"], "each device once: \(sent(requests, "Eid"))")
        let tries: ([[String: Any]], String) -> [Int] = { requests, token in
            requests.filter { $0["token"] as? String == token && ofAnnouncement($0, "Eid") }.compactMap { $0["status"] as? Int }
        }
        #expect(tries(requests, "a4") == [429, 200] && tries(requests, "a5") == [401, 200], "\(tries(requests, "a4")) \(tries(requests, "a5"))")
        // One exchange for every send, and one more when FCM refused the token.
        #expect(server.log("tokens.jsonl").map { $0["status"] as? Int } == [200, 200], "\(server.log("tokens.jsonl"))")
        let message = try #require(requests.first { $0["token"] as? String == "a1" && ofAnnouncement($0, "Eid") }?["message"] as? [String: Any])
        let android = try #require(message["android"] as? [String: Any])
        let notification = try #require(android["notification"] as? [String: Any])
        #expect(notification["body_loc_key"] as? String == "tilawa_announcement" && notification["title_loc_key"] as? String == "tilawa_announcement_title")
        #expect(notification["notification_count"] as? Int ?? 0 >= 1, "the unread count")
        #expect(notification["tag"] as? String == android["collapse_key"] as? String && android["collapse_key"] != nil)
        #expect((message["data"] as? [String: String])?["event_id"]?.hasPrefix("evt_") == true, "\(message)")
        let s1003 = try await sendJSON("GET", daemon.port, "/v1/students/S1003/devices", token: ops)
        #expect(String(decoding: s1003.1, as: UTF8.self).contains("\"devices\":[]"), "signed out: \(String(decoding: s1003.1, as: UTF8.self))")

        // An account Google refuses: the channel stops, said by status; the notice waits.
        _ = await daemon.terminate()
        daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment(account: "revoked.json"))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let second = try await sendJSON("POST", daemon.port, "/v1/announcements", token: ops,
                                        json: #"{"title": "Reminder", "body": "Record week 12 today.", "audience": {"all": true}}"#)
        #expect(second.0 == 202)
        var status = ""
        let stopped = ContinuousClock.now + TestTime.hangLimit
        while !status.contains("pushes to Android phones stopped"), ContinuousClock.now < stopped {
            status = try await state.run(["status"], environment: environment(account: "revoked.json")).stdout
            if !status.contains("pushes to Android phones stopped") { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(status.contains("pushes to Android phones stopped") && status.contains(Self.email), "\(status)")
        #expect(server.log("tokens.jsonl").last?["error"] as? String == "invalid_grant")
        #expect(sent(server.requests, "Reminder").isEmpty)

        // Fixed: every device gets the second announcement once; nothing was dropped or sent twice.
        _ = await daemon.terminate()
        daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment(account: "account.json"))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await server.settled { sent($0, "Reminder").count >= 4 }, "\(server.requests.suffix(6))")
        #expect(sent(server.requests, "Reminder") == ["a1", "a2", "a4", "a5"], "\(sent(server.requests, "Reminder"))")
        #expect(sent(server.requests, "Eid") == ["a1", "a2", "a4", "a5"], "the first announcement not sent again")
        let healthy = try await state.run(["status"], environment: environment(account: "account.json")).stdout
        #expect(!healthy.contains("pushes to Android phones stopped"), "\(healthy)")
        _ = await daemon.terminate()
    }

    @Test("""
        A daemon killed (SIGKILL) while FCM holds one send: started again, it sends that one again at once with the same event id \
        and tag (the phone shows it once) and nothing already answered a second time
        """)
    func killedMidDelivery() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let (server, _) = try await Self.start(in: state)
        defer { server.stop() }
        // FCM holds k1's first send far longer than the test waits.
        try server.script(["k1": ["when": "Eid", "answers": [[200, "", NSNull(), 600]]]])
        let environment = ["TILAWA_PUSH_FCM_SERVICE_ACCOUNT_FILE": state.scratch.path("account.json"),
                           "TILAWA_PUSH_FCM_ENDPOINT": "https://127.0.0.1:\(server.port)", "TILAWA_PUSH_FCM_CA_FILE": server.folder + "/ca.pem",
                           "TILAWA_NOTIFICATIONS_QUIET_HOURS": "none", "TILAWA_TEST_CLOCK": Self.programmeClock]
        func issue(_ flag: String, _ id: String) async throws -> String {
            try await state.run(["token", "issue", flag, id], environment: environment).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        for (student, token) in [("S1001", "k1"), ("S1002", "k2"), ("S1003", "k3")] {
            let registered = try await sendJSON("PUT", daemon.port, "/v1/students/\(student)/devices/phone", token: try await issue("--student", student),
                                                json: #"{"platform": "android", "token": "\#(token)"}"#)
            #expect(registered.0 == 201)
        }
        let announced = try await sendJSON("POST", daemon.port, "/v1/announcements", token: try await issue("--ops", "ops"),
                                           json: #"{"title": "Eid", "body": "No lesson on Saturday.", "audience": {"all": true}}"#)
        #expect(announced.0 == 202)
        let eid: @Sendable ([String: Any]) -> Bool = { request in
            ((request["message"] as? [String: Any])?["data"] as? [String: String])?["params"]?.contains("\"Eid\"") == true
        }
        let tries: @Sendable ([[String: Any]], String) -> [[String: Any]] = { requests, token in
            requests.filter { $0["token"] as? String == token && eid($0) }
        }
        #expect(await server.settled { requests in ["k1", "k2", "k3"].allSatisfy { !tries(requests, $0).isEmpty } }, "\(daemon.log)")
        // k2 and k3 are recorded as they are answered, not when k1's answer comes.
        var recorded = 0
        let deadline = ContinuousClock.now + TestTime.hangLimit
        while recorded < 2, ContinuousClock.now < deadline {
            recorded = try state.read { db in
                // The announcement's deliveries only: the week's unlock, sent at start, may reach
                // the same phones first (it did under load: three rows).
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq
                    WHERE event.type = 'announcement' AND pushDelivery.state = 'sent' AND pushDelivery.deviceId = 'phone'
                      AND pushDelivery.ownerId IN ('S1002', 'S1003')
                    """) ?? 0
            }
            if recorded < 2 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recorded == 2, "k2 and k3 recorded while k1 is in flight")

        _ = daemon.process.signal(SIGKILL)
        _ = daemon.process.waitUntilExit()
        daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await server.settled { tries($0, "k1").count >= 2 }, "k1 sent again: \(daemon.log)")
        // Given back at start (the dead daemon's claim), not left to run out.
        #expect(daemon.log.contains("pushes a stopped daemon was sending are sent again"), "\(daemon.log)")
        var open = -1
        let settled = ContinuousClock.now + TestTime.hangLimit
        while open != 0, ContinuousClock.now < settled {
            open = try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE state <> 'sent' AND state <> 'dropped'") ?? -1 }
            if open != 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(open == 0, "every delivery recorded")
        let requests = server.requests
        #expect(tries(requests, "k2").count == 1 && tries(requests, "k3").count == 1, "nothing answered is sent twice")
        let k1 = tries(requests, "k1")
        #expect(k1.count == 2)
        let identities = Set(k1.map { request -> String in
            let message = request["message"] as? [String: Any]
            let data = message?["data"] as? [String: String]
            let tag = ((message?["android"] as? [String: Any])?["notification"] as? [String: Any])?["tag"] as? String
            return "\(data?["event_id"] ?? "") \(tag ?? "")"
        })
        #expect(identities.count == 1, "the same event id and tag: \(identities)")
        _ = await daemon.terminate()
    }
}
