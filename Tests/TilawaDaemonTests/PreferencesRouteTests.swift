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
}
