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

/// Issue 26 item 9: cursors are sealed positions bound to their feed, not global sequence numbers.
@Suite("Event cursors: opaque, sealed, bound to their feed")
struct EventCursorTests {
    static let key = EventCursorKey(secret: Array(repeating: 7, count: 32))

    static func isSealed(_ text: String) -> Bool {
        text.wholeMatch(of: /c_[A-Za-z0-9_-]{34}/) != nil
    }

    /// `text` with its character at `offset` replaced by another of the alphabet.
    static func altered(_ text: String, at offset: Int) -> String {
        var characters = Array(text)
        guard characters.indices.contains(offset) else { return text + "A" }
        characters[offset] = characters[offset] == "A" ? "B" : "A"
        return String(characters)
    }

    @Test("a position seals to the same text for the same feed, reads back only there, and no altered or made-up text reads")
    func sealing() throws {
        let feed = EventCursor(key: Self.key, recipient: .student("S1001"))
        let text = feed.text(for: 4_242)
        #expect(Self.isSealed(text), "\(text)")
        #expect(feed.text(for: 4_242) == text && feed.text(for: 4_243) != text)
        #expect(feed.position(of: text) == 4_242)
        #expect(feed.position(of: feed.text(for: 0)) == 0)
        #expect(feed.position(of: feed.text(for: 999_999_999_999_999_999)) == 999_999_999_999_999_999)
        // The position cannot be read off the cursor: its bytes are hidden, neighbours look unrelated.
        for position: Int64 in [0, 1, 2, 255, 4_242, 1 << 40] {
            let bytes = Array(TokenHeader.base64URLDecoded(feed.text(for: position).dropFirst(2)) ?? Data())
            try #require(bytes.count == 25)
            #expect(bytes[0] == 1)
            #expect(Array(bytes[1..<9]) != withUnsafeBytes(of: UInt64(position).bigEndian, Array.init), "\(position)")
        }
        #expect(feed.text(for: 1).prefix(12) != feed.text(for: 2).prefix(12))
        // Another feed, another kind of recipient with the same id, another key.
        #expect(EventCursor(key: Self.key, recipient: .student("S1002")).position(of: text) == nil)
        #expect(EventCursor(key: Self.key, recipient: .coach("S1001")).position(of: text) == nil)
        #expect(EventCursor(key: EventCursorKey(secret: Array(repeating: 8, count: 32)), recipient: .student("S1001")).position(of: text) == nil)
        // Any character of the version, position or seal altered (the last one carries padding bits too).
        for offset in 2..<(text.count - 1) {
            #expect(feed.position(of: Self.altered(text, at: offset)) == nil, "offset \(offset)")
        }
        for bad in ["", "x", "-1", "c_", "c_AAAA", text + "A", "C" + text.dropFirst(), String(text.dropLast()), "1234567890123456789", " 12"] {
            #expect(feed.position(of: bad) == nil, "\(bad)")
        }
        // The former digits still read, on any feed.
        #expect(feed.position(of: "0") == 0 && feed.position(of: "17") == 17)
        #expect(feed.position(of: "999999999999999999") == 999_999_999_999_999_999)
    }

    @Test("every cursor the feeds send is sealed; another feed's cursor is 400 invalid_cursor on every route; the former digits still page and mark read")
    func boundToTheFeed() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try ReadStateRouteTests.addEvents(daemon.runtime.database, student: "S1001", count: 5, from: daemon.clock.now)
        try ReadStateRouteTests.addEvents(daemon.runtime.database, student: "S1002", count: 2, from: daemon.clock.now)
        let sequence = try await daemon.runtime.database.engine.read { db in
            try Int64.fetchAll(db, sql: "SELECT seq FROM event WHERE studentId = 'S1001' AND recipient = 'student' ORDER BY seq")
        }
        try await daemon.application().test(.router) { client in
            let s1001 = try await daemon.headers(.student, "S1001")
            func cursors(_ response: TestResponse) -> [String] {
                (response.json?["events"] as? [[String: Any]] ?? []).compactMap { $0["cursor"] as? String }
            }
            let feed = try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: s1001)
            let all = cursors(feed)
            try #require(all.count == 6 && sequence.count == 6, "the import's welcome and five more")
            let sent = all + [feed.json?["next_cursor"] as? String, feed.json?["read_cursor"] as? String].compactMap { $0 }
            #expect(sent.count == 8 && sent.allSatisfy(Self.isSealed), "\(sent)")

            // The former digits name the same positions as the sealed cursors.
            let legacy = try await client.execute(uri: "/v1/students/S1001/events?after=\(sequence[2])", method: .get, headers: s1001)
            let sealed = try await client.execute(uri: "/v1/students/S1001/events?after=\(all[2])", method: .get, headers: s1001)
            #expect(cursors(legacy) == Array(all[3...]) && cursors(sealed) == Array(all[3...]))
            #expect(legacy.json?["next_cursor"] as? String == all.last)
            let newest = try await client.execute(uri: "/v1/students/S1001/events?before=999999999999999999&limit=2", method: .get, headers: s1001)
            #expect(cursors(newest) == [all[5], all[4]] && newest.json?["next_cursor"] as? String == all[4])
            let open = try await client.execute(uri: "/v1/students/S1001/events?before=&limit=2", method: .get, headers: s1001)
            #expect(open.status == .ok && cursors(open) == [all[5], all[4]], "no cursor: from the newest")
            let forwards = try await client.execute(uri: "/v1/students/S1001/events?after=", method: .get, headers: s1001)
            #expect(forwards.status == .badRequest, "an empty after is no cursor")

            // S1001's cursor on S1002's feed, read by S1002 or by ops, forwards or backwards; on a coach's feed; altered.
            for (uri, headers) in [
                ("/v1/students/S1002/events?after=\(all[2])", try await daemon.headers(.student, "S1002")),
                ("/v1/students/S1002/events?before=\(all[2])", try await daemon.headers(.ops, "ops")),
                ("/v1/coaches/C01/events?after=\(all[2])", try await daemon.headers(.coach, "C01")),
                ("/v1/students/S1001/events?after=\(Self.altered(all[2], at: 10))", s1001),
            ] {
                let refused = try await client.execute(uri: uri, method: .get, headers: headers)
                #expect(refused.status == .badRequest && refused.json?["code"] as? String == "invalid_cursor", "\(uri)")
            }
            let coachFeed = try await client.execute(uri: "/v1/coaches/C01/events", method: .get, headers: try await daemon.headers(.coach, "C01"))
            let coachCursor = try #require(coachFeed.json?["next_cursor"] as? String)
            #expect(Self.isSealed(coachCursor))
            let otherCoach = try await client.execute(uri: "/v1/coaches/C02/events?before=\(coachCursor)", method: .get,
                                                      headers: try await daemon.headers(.ops, "ops"))
            #expect(otherCoach.status == .badRequest && otherCoach.json?["code"] as? String == "invalid_cursor")

            // Marking read: another student's cursor is refused; their own, sealed or as digits, moves the position.
            let s1002JSON = try await daemon.headers(.student, "S1002", [.contentType: "application/json"])
            let foreign = try await client.execute(uri: "/v1/students/S1002/events/read", method: .post, headers: s1002JSON,
                                                   body: ByteBuffer(string: #"{"cursor": "\#(all[2])"}"#))
            #expect(foreign.status == .badRequest && foreign.json?["code"] as? String == "invalid_cursor")
            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            let read = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                                body: ByteBuffer(string: #"{"cursor": "\#(all[2])"}"#))
            #expect(read.status == .ok && read.json?["read_cursor"] as? String == all[2] && read.json?["unread_count"] as? Int == 3)
            let digits = try await client.execute(uri: "/v1/students/S1001/events/read", method: .post, headers: json,
                                                  body: ByteBuffer(string: #"{"cursor": "\#(sequence[4])"}"#))
            #expect(digits.status == .ok && digits.json?["read_cursor"] as? String == all[4] && digits.json?["unread_count"] as? Int == 1)
        }
    }
}
