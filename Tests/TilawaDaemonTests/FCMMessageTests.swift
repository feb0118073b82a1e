import Crypto
import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon
@testable import TilawaStore
import TilawaTestSupport
import _CryptoExtras

/// What Tilawa sends FCM (issue 45): the service account's assertion and one message.
@Suite("FCM: the service account's assertion, a message's fields and FCM's answers")
struct FCMMessageTests {
    static let at = APNsNotificationTests.at

    static func account(_ key: _RSA.Signing.PrivateKey) -> FCMServiceAccount {
        FCMServiceAccount(projectId: "tilawa-test", clientEmail: "push@tilawa-test.iam.gserviceaccount.com", privateKeyId: "kid1",
                          privateKey: key, tokenURI: URL(string: "https://oauth2.googleapis.com/token")!)
    }

    @Test("The assertion is RS256 over {alg, typ, kid}.{iss, scope, aud, iat, exp an hour later} and verifies with the account's public key only")
    func assertion() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let token = try Self.account(key).assertion(at: Self.at)
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let header = try APNsNotificationTests.decodeSegment(parts[0]), claims = try APNsNotificationTests.decodeSegment(parts[1])
        #expect(header["alg"] as? String == "RS256" && header["kid"] as? String == "kid1" && header["typ"] as? String == "JWT")
        #expect(claims["iss"] as? String == "push@tilawa-test.iam.gserviceaccount.com")
        #expect(claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims["aud"] as? String == "https://oauth2.googleapis.com/token")
        let issued = Int(Self.at.timeIntervalSince1970)
        #expect(claims["iat"] as? Int == issued && claims["exp"] as? Int == issued + 3_600)
        var base64 = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Data(base64Encoded: base64)))
        let input = Data("\(parts[0]).\(parts[1])".utf8)
        #expect(key.publicKey.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5))
        #expect(!(try _RSA.Signing.PrivateKey(keySize: .bits2048)).publicKey.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5))
    }

    @Test("A service account file is read as Google issues it; anything else is said plainly, naming the file")
    func accountFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        func write(_ name: String, _ document: [String: Any]) throws -> String {
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: scratch.path(name)))
            return scratch.path(name)
        }
        let good: [String: Any] = ["type": "service_account", "project_id": "p", "private_key_id": "k", "private_key": key.pkcs8PEMRepresentation,
                                   "client_email": "e@p.iam.gserviceaccount.com"]
        guard case let .success(account) = FCMServiceAccount.load(try write("good.json", good)) else {
            Issue.record("a good account did not load")
            return
        }
        #expect(account.projectId == "p" && account.tokenURI.absoluteString == "https://oauth2.googleapis.com/token", "Google's endpoint by default")
        var user = good
        user["type"] = "authorized_user"
        var weak = good
        weak["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        var plain = good
        plain["token_uri"] = "http://oauth2.googleapis.com/token"
        try "{".write(toFile: scratch.path("broken.json"), atomically: true, encoding: .utf8)
        let problems: [(String, FCMAccountProblem)] = [
            (scratch.path("missing.json"), .unreadable(scratch.path("missing.json"))),
            (scratch.path("broken.json"), .notJSON(scratch.path("broken.json"))),
            (try write("user.json", user), .wrong(scratch.path("user.json"), "its \"type\" is not \"service_account\"")),
            (try write("weak.json", weak), .wrong(scratch.path("weak.json"), "its private_key is not an RSA key of 2048 bits or more in PEM")),
            (try write("plain.json", plain), .wrong(scratch.path("plain.json"), "its token_uri is not an https URL")),
        ]
        for (path, expected) in problems {
            guard case let .failure(problem) = FCMServiceAccount.load(path) else {
                Issue.record("\(path) loaded")
                continue
            }
            #expect(problem == expected)
            #expect(problem.description.contains(path))
        }
    }

    @Test("A reminder: android.notification with loc keys as Android resource names, args by parameter name, the English as fallback, tag and collapse_key per kind and week, the unread count, ttl to the deadline; data as strings with the event id and link")
    func reminderMessage() throws {
        let deadline = Self.at.addingTimeInterval(86_400)
        let data = FCMMessage.make(eventId: "evt_1", payload: APNsNotificationTests.reminder(), token: "tok", badge: 3, expiresAt: deadline,
                                   now: Self.at.addingTimeInterval(400))
        let message = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["message"] as? [String: Any])
        #expect(message["token"] as? String == "tok")
        let android = try #require(message["android"] as? [String: Any])
        #expect(android["ttl"] as? String == "86000s" && android["priority"] as? String == "HIGH" && android["collapse_key"] as? String == "deadline_reminder-w5")
        let notification = try #require(android["notification"] as? [String: Any])
        #expect(notification["body_loc_key"] as? String == "tilawa_deadline_reminder" && notification["title_loc_key"] as? String == "tilawa_deadline_reminder_title")
        #expect(notification["body_loc_args"] as? [String] == [deadline.formatted(.iso8601), "Al-Mulk 1–10", "5"], "by parameter name: deadline, title, week")
        #expect(notification["title"] as? String == "Week 5 · Al-Mulk 1–10" && notification["body"] as? String == "Week 5's recording is due Friday 23:59.")
        #expect(notification["tag"] as? String == "deadline_reminder-w5" && notification["notification_count"] as? Int == 3)
        let fields = try #require(message["data"] as? [String: String], "every data value a string")
        #expect(fields["event_id"] == "evt_1" && fields["link"] == "tilawa://weeks/5" && fields["type"] == "deadline_reminder")
        let paramsText = try #require(fields["params"])
        let params = try #require(try JSONSerialization.jsonObject(with: Data(paramsText.utf8)) as? [String: String])
        #expect(params["week"] == "5" && params["title"] == "Al-Mulk 1–10")
        // Past its deadline: FCM tries once, now or never.
        let late = FCMMessage.make(eventId: "evt_1", payload: APNsNotificationTests.reminder(), token: "tok", badge: nil, expiresAt: deadline,
                                   now: deadline.addingTimeInterval(10))
        #expect(String(decoding: late, as: UTF8.self).contains(#""ttl":"0s""#))
    }

    @Test("A long announcement is cut to fit FCM's 4,000 bytes; the loc keys, the event id and the link stay whole")
    func longAnnouncement() throws {
        var payload = APNsNotificationTests.event("evt_9", "announcement", message: String(repeating: "نص طويل ", count: 800), link: "tilawa://announcements/a")
        payload.messageKey = "announcement"
        payload.params = ["title": .text("Eid"), "body": .text(String(repeating: "نص طويل ", count: 800))]
        let data = FCMMessage.make(eventId: "evt_9", payload: payload, token: "tok", badge: 1, expiresAt: Self.at.addingTimeInterval(3_600), now: Self.at)
        #expect(data.count <= FCMMessage.maximumPayload && data.count > FCMMessage.maximumPayload - 200, "\(data.count)")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("tilawa_announcement") && text.contains("evt_9") && text.contains("tilawa://announcements/a") && text.contains("…"))
    }

    @Test("Two announcements have a tag and collapse_key each, so the second never replaces the first; two reminders of one week share theirs")
    func collapseKeys() throws {
        func keys(_ data: Data) throws -> (tag: String?, collapse: String?) {
            let message = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["message"] as? [String: Any])
            let android = try #require(message["android"] as? [String: Any])
            return ((android["notification"] as? [String: Any])?["tag"] as? String, android["collapse_key"] as? String)
        }
        func announcement(_ eventId: String, _ announcementId: String) throws -> (tag: String?, collapse: String?) {
            var payload = APNsNotificationTests.event(eventId, "announcement", message: "m", link: "tilawa://announcements/\(announcementId)")
            payload.messageKey = "announcement"
            payload.extra = EventPayload.Extra(announcement: EventPayload.Announcement(id: announcementId, title: "t", body: "m"))
            return try keys(FCMMessage.make(eventId: eventId, payload: payload, token: "tok", badge: nil, expiresAt: Self.at.addingTimeInterval(3_600), now: Self.at))
        }
        let eid = try announcement("evt_1", "ann_01KAY3Q0V5B9XG2T6RM8N4PDSH"), exams = try announcement("evt_2", "ann_01KAY3Q9C2H7WJ5F0ZK3B8VNQE")
        #expect(eid.tag == "announcement-ann_01KAY3Q0V5B9XG2T6RM8N4PDSH" && eid.collapse == eid.tag)
        #expect(exams.tag == "announcement-ann_01KAY3Q9C2H7WJ5F0ZK3B8VNQE" && exams.collapse == exams.tag)
        var later = APNsNotificationTests.reminder()
        later.id = "evt_4"
        later.params?["deadline"] = .instant(Self.at.addingTimeInterval(90_000))
        let first = try keys(FCMMessage.make(eventId: "evt_3", payload: APNsNotificationTests.reminder(), token: "tok", badge: nil,
                                             expiresAt: Self.at.addingTimeInterval(86_400), now: Self.at))
        let second = try keys(FCMMessage.make(eventId: "evt_4", payload: later, token: "tok", badge: nil, expiresAt: Self.at.addingTimeInterval(86_400), now: Self.at))
        #expect(first.tag == "deadline_reminder-w5" && first.collapse == first.tag && second.tag == first.tag && second.collapse == first.collapse)
    }

    @Test("FCM's answers mean what Firebase says: UNREGISTERED, SENDER_ID_MISMATCH and a bad token sign the device out, 429 and 5xx are retried (Retry-After kept), 401 renews the access token, 403 and an unknown project stop the channel, another 400 drops the one message",
          arguments: [(200, "", "", nil, PushAnswer.sent), (404, "UNREGISTERED", "", nil, .unregistered(reason: "UNREGISTERED")),
                      (403, "SENDER_ID_MISMATCH", "", nil, .unregistered(reason: "SENDER_ID_MISMATCH")),
                      (400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", nil,
                       .unregistered(reason: "INVALID_ARGUMENT: The registration token is not a valid FCM registration token")),
                      (400, "INVALID_ARGUMENT", "Invalid value at 'message.android.ttl'", nil,
                       .refused(reason: "HTTP 400 INVALID_ARGUMENT: Invalid value at 'message.android.ttl'")),
                      (429, "QUOTA_EXCEEDED", "", 30, .retry(after: 30, reason: "HTTP 429 QUOTA_EXCEEDED")),
                      (503, "UNAVAILABLE", "", nil, .retry(after: nil, reason: "HTTP 503 UNAVAILABLE")),
                      (500, "INTERNAL", "", nil, .retry(after: nil, reason: "HTTP 500 INTERNAL")),
                      (401, "UNAUTHENTICATED", "", nil, .expiredToken)] as [(Int, String, String, TimeInterval?, PushAnswer)])
    func answers(_ status: Int, _ code: String, _ message: String, _ retryAfter: TimeInterval?, _ expected: PushAnswer) {
        #expect(FCMClient.meaning(status: status, code: code, message: message, retryAfter: retryAfter, account: "a@p", project: "p",
                                  endpoint: "https://fcm.googleapis.com/v1/projects/p/messages:send") == expected)
    }

    @Test("A refused account or project stops the channel, naming what to fix", arguments: [(403, "PERMISSION_DENIED"), (404, "NOT_FOUND"), (401, "THIRD_PARTY_AUTH_ERROR")])
    func channelRefusals(_ status: Int, _ code: String) {
        guard case let .channelRefused(reason) = FCMClient.meaning(status: status, code: code, message: "", retryAfter: nil, account: "a@p", project: "proj",
                                                                   endpoint: "https://fcm.googleapis.com/v1/projects/proj/messages:send") else {
            Issue.record("not a channel refusal")
            return
        }
        #expect(reason.contains("proj") && reason.contains(code))
    }

    @Test("Every message key is an Android string resource name, and the README lists each for the app team")
    func resourcesDocumented() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for key in EnglishMessages.keys {
            let resource = FCMMessage.resource(key)
            #expect(resource.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") } && resource.first?.isLetter == true, "\(resource)")
            #expect(readme.contains("`\(resource)`"), "README lists \(resource) for the app team")
        }
    }
}
