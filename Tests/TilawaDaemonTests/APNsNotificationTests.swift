import Crypto
import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon
@testable import TilawaStore
import TilawaTestSupport

/// What Tilawa sends APNs (issue 45): the provider token and one notification's request.
@Suite("APNs: the provider token and a notification's headers and payload")
struct APNsNotificationTests {
    static let at = Date(timeIntervalSince1970: 1_795_359_600)

    static func decodeSegment(_ text: Substring) throws -> [String: Any] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("The token is ES256 over {alg, kid}.{iss, iat}, verifies with the key's public half, is reused for 50 minutes and made again after (or when discarded)")
    func providerToken() throws {
        let key = P256.Signing.PrivateKey()
        let tokens = APNsProviderToken(key: key, keyId: "ABC123DEFG", teamId: "TEAM456789")
        let first = try tokens.token(now: Self.at)
        let parts = first.split(separator: ".")
        #expect(parts.count == 3)
        let header = try Self.decodeSegment(parts[0]), claims = try Self.decodeSegment(parts[1])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG" && header.count == 2)
        #expect(claims["iss"] as? String == "TEAM456789" && claims["iat"] as? Int == Int(Self.at.timeIntervalSince1970) && claims.count == 2)
        var signature = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signature.count % 4 != 0 { signature += "=" }
        let raw = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Data(base64Encoded: signature)))
        #expect(key.publicKey.isValidSignature(raw, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(raw, for: Data("\(parts[0]).\(parts[1])".utf8)))

        #expect(try tokens.token(now: Self.at.addingTimeInterval(49 * 60)) == first, "reused within 50 minutes")
        let second = try tokens.token(now: Self.at.addingTimeInterval(50 * 60))
        #expect(second != first, "made again at 50 minutes, before Apple's hour")
        tokens.discard(first)
        #expect(try tokens.token(now: Self.at.addingTimeInterval(50 * 60 + 1)) == second,
                "a token already replaced, refused by a send that used it: the current one is kept")
        tokens.discard(second)
        let third = try tokens.token(now: Self.at.addingTimeInterval(51 * 60))
        #expect(third != second, "the current token refused as expired: a new one")
    }

    @Test("A .p8 file is read as Apple issues it; anything else is said as not an APNs signing key")
    func keyFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let key = P256.Signing.PrivateKey()
        try key.pemRepresentation.write(toFile: scratch.path("AuthKey.p8"), atomically: true, encoding: .utf8)
        guard case let .success(loaded) = APNsProviderToken.loadKey(scratch.path("AuthKey.p8")) else {
            Issue.record("the key did not load")
            return
        }
        #expect(loaded.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
        try "not a key".write(toFile: scratch.path("bad.p8"), atomically: true, encoding: .utf8)
        if case let .failure(problem) = APNsProviderToken.loadKey(scratch.path("bad.p8")) {
            #expect(problem == .notAKey(scratch.path("bad.p8")))
        } else {
            Issue.record("a bad key loaded")
        }
        if case let .failure(problem) = APNsProviderToken.loadKey(scratch.path("absent.p8")) {
            #expect(problem == .unreadable(scratch.path("absent.p8")))
        } else {
            Issue.record("an absent key loaded")
        }
    }

    static func event(_ id: String, _ type: String, message: String, link: String) -> EventPayload {
        EventPayload(id: id, type: type, recipient: "student", recipientId: nil, studentId: "S1001", occurredAt: at, week: nil,
                     submissionId: nil, feedbackId: nil, coachName: nil, message: message, link: link, extra: nil)
    }

    static func reminder() -> EventPayload {
        var payload = event("evt_1", "deadline_reminder", message: "Week 5's recording is due Friday 23:59.", link: "tilawa://weeks/5")
        payload.week = .init(number: 5, kind: "week", title: "Al-Mulk 1–10")
        payload.messageKey = "deadline_reminder"
        payload.params = ["week": .int(5), "title": .text("Al-Mulk 1–10"), "deadline": .instant(at.addingTimeInterval(86_400))]
        return payload
    }

    @Test("A reminder: alert with loc-key, title-loc-key, loc-args by parameter name, the English as fallback; badge, thread per week, collapse per week and kind, expiry at the deadline, apns-id stable per event")
    func reminderRequest() throws {
        let deadline = Self.at.addingTimeInterval(86_400)
        let request = APNsNotification.make(eventId: "evt_1", payload: Self.reminder(), topic: "org.example.tilawa", badge: 3, expiresAt: deadline)
        let headers = Dictionary(uniqueKeysWithValues: request.headers)
        #expect(headers["apns-push-type"] == "alert" && headers["apns-topic"] == "org.example.tilawa" && headers["apns-priority"] == "10")
        #expect(headers["apns-collapse-id"] == "deadline_reminder-w5")
        #expect(headers["apns-expiration"] == String(Int(deadline.timeIntervalSince1970)))
        let id = try #require(headers["apns-id"])
        #expect(UUID(uuidString: id) != nil && id == APNsNotification.make(eventId: "evt_1", payload: Self.reminder(), topic: "t", badge: nil, expiresAt: nil)
                    .headers.first { $0.0 == "apns-id" }?.1)
        #expect(id != APNsNotification.uuid(of: "evt_2"))

        let document = try #require(try JSONSerialization.jsonObject(with: request.payload) as? [String: Any])
        let aps = try #require(document["aps"] as? [String: Any]), alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["loc-key"] as? String == "tilawa.deadline_reminder" && alert["title-loc-key"] as? String == "tilawa.deadline_reminder.title")
        #expect(alert["loc-args"] as? [String] == [deadline.formatted(.iso8601), "Al-Mulk 1–10", "5"], "deadline, title, week: by name")
        #expect(alert["title"] as? String == "Week 5 · Al-Mulk 1–10" && alert["body"] as? String == "Week 5's recording is due Friday 23:59.")
        #expect(aps["badge"] as? Int == 3 && aps["thread-id"] as? String == "week-5")
        #expect(document["event_id"] as? String == "evt_1" && document["link"] as? String == "tilawa://weeks/5")
        #expect((document["params"] as? [String: String])?["week"] == "5")
        #expect(request.payload.count <= APNsNotification.maximumPayload)

        let refusal = APNsNotification.make(eventId: "evt_3", payload: Self.reminder(), topic: "t", badge: nil, expiresAt: nil)
        #expect(Dictionary(uniqueKeysWithValues: refusal.headers)["apns-expiration"] == "0", "no deadline: tried once")
    }

    @Test("An announcement of 10 KiB is cut to fit 4 KiB, still valid JSON, ids and link whole; Arabic text cut on a character")
    func longAnnouncement() throws {
        let text = String(repeating: "السلام عليكم ورحمة الله ", count: 420)
        var payload = Self.event("evt_9", "announcement", message: text, link: "tilawa://announcements/ann_1")
        payload.messageKey = "announcement"
        payload.params = ["title": .text("Eid"), "body": .text(text)]
        #expect(Data(text.utf8).count > 10_000)
        let request = APNsNotification.make(eventId: "evt_9", payload: payload, topic: "t", badge: 0, expiresAt: nil)
        #expect(request.payload.count <= APNsNotification.maximumPayload && request.payload.count > APNsNotification.maximumPayload - 200)
        let document = try #require(try JSONSerialization.jsonObject(with: request.payload) as? [String: Any])
        let body = try #require(((document["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String)
        #expect(body.hasSuffix("…") && text.hasPrefix(String(body.dropLast())))
        #expect(document["link"] as? String == "tilawa://announcements/ann_1" && (document["params"] as? [String: String])?["title"] == "Eid")
        #expect(Dictionary(uniqueKeysWithValues: request.headers)["apns-collapse-id"] == "announcement-evt_9", "stored without its announcement: the event's id")
    }

    static func collapseId(_ eventId: String, _ payload: EventPayload) -> String? {
        Dictionary(uniqueKeysWithValues: APNsNotification.make(eventId: eventId, payload: payload, topic: "t", badge: nil, expiresAt: nil).headers)["apns-collapse-id"]
    }

    @Test("""
        Two announcements have a collapse id each (`announcement-<its id>`, the same for every student it reaches), so the \
        second never replaces the first on the phone; two reminders of one week share one, so the later replaces the earlier; \
        none is over APNs' 64 bytes
        """)
    func collapseIds() {
        func announcement(_ eventId: String, _ announcementId: String) -> EventPayload {
            var payload = Self.event(eventId, "announcement", message: "m", link: "tilawa://announcements/\(announcementId)")
            payload.messageKey = "announcement"
            payload.extra = EventPayload.Extra(announcement: EventPayload.Announcement(id: announcementId, title: "t", body: "m"))
            return payload
        }
        let eid = Self.collapseId("evt_1", announcement("evt_1", "ann_01KAY3Q0V5B9XG2T6RM8N4PDSH"))
        let exams = Self.collapseId("evt_2", announcement("evt_2", "ann_01KAY3Q9C2H7WJ5F0ZK3B8VNQE"))
        #expect(eid == "announcement-ann_01KAY3Q0V5B9XG2T6RM8N4PDSH" && exams == "announcement-ann_01KAY3Q9C2H7WJ5F0ZK3B8VNQE")
        #expect(eid != exams)
        #expect(Self.collapseId("evt_3", announcement("evt_3", "ann_01KAY3Q0V5B9XG2T6RM8N4PDSH")) == eid, "another student's copy of the same announcement")

        var later = Self.reminder()
        later.id = "evt_5"
        later.params?["deadline"] = .instant(Self.at.addingTimeInterval(90_000))
        let first = Self.collapseId("evt_4", Self.reminder()), second = Self.collapseId("evt_5", later)
        #expect(first == "deadline_reminder-w5" && second == first)

        let long = Self.collapseId("evt_6", announcement("evt_6", "ann_" + String(repeating: "é", count: 60)))
        #expect((long?.utf8.count ?? 0) <= 64 && long?.hasPrefix("announcement-ann_é") == true, "\(long ?? "-")")
    }

    @Test("APNs' answers mean what Apple says: 410 and a bad token sign the device out, 429 and 5xx are retried (Retry-After kept), 403 stops the channel unless the token only expired, another 4xx drops the one notification",
          arguments: [(200, "", nil, PushAnswer.sent), (410, "Unregistered", nil, .unregistered(reason: "Unregistered")),
                      (400, "BadDeviceToken", nil, .unregistered(reason: "BadDeviceToken")),
                      (400, "DeviceTokenNotForTopic", nil, .unregistered(reason: "DeviceTokenNotForTopic")),
                      (429, "TooManyRequests", "30", .retry(after: 30, reason: "HTTP 429 TooManyRequests")),
                      (503, "ServiceUnavailable", nil, .retry(after: nil, reason: "HTTP 503 ServiceUnavailable")),
                      (403, "ExpiredProviderToken", nil, .expiredToken),
                      (413, "PayloadTooLarge", nil, .refused(reason: "HTTP 413 PayloadTooLarge"))] as [(Int, String, String?, PushAnswer)])
    func answers(_ status: Int, _ reason: String, _ retryAfter: String?, _ expected: PushAnswer) {
        #expect(APNsClient.meaning(status: status, reason: reason, retryAfter: PushAnswer.retryAfter(retryAfter), keyId: "ABC123DEFG") == expected)
    }

    @Test("A refused key or topic stops the channel, naming what to fix")
    func channelRefusals() {
        guard case let .channelRefused(key) = APNsClient.meaning(status: 403, reason: "InvalidProviderToken", retryAfter: nil, keyId: "ABC123DEFG"),
              case let .channelRefused(topic) = APNsClient.meaning(status: 400, reason: "BadTopic", retryAfter: nil, keyId: "ABC123DEFG") else {
            Issue.record("not a channel refusal")
            return
        }
        #expect(key.contains("ABC123DEFG") && key.contains("push.apns.key_file") && topic.contains("push.apns.topic"))
    }

    @Test("Every message key has its loc-key, and the README lists each for the app team")
    func locKeysDocumented() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for key in EnglishMessages.keys {
            var payload = Self.event("e", key.split(separator: ".").first.map(String.init) ?? key, message: "m", link: "l")
            payload.messageKey = key
            let request = APNsNotification.make(eventId: "e", payload: payload, topic: "t", badge: nil, expiresAt: nil)
            let alert = try #require(((try JSONSerialization.jsonObject(with: request.payload) as? [String: Any])?["aps"] as? [String: Any])?["alert"]
                as? [String: Any])
            #expect(alert["loc-key"] as? String == "tilawa.\(key)")
            #expect(readme.contains("`tilawa.\(key)`"), "README lists tilawa.\(key) for the app team")
        }
    }
}
