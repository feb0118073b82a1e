import Foundation
import HTTPTypes
import Hummingbird
import Testing
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

/// The log of a live daemon (issue 46): a student is named by their pseudonym, never their id,
/// and a request refused as not signed in is one line saying why and from where.
@Suite("The request log names people by pseudonym and says why a 401 was refused")
struct RequestLogPrivacyTests {
    @Test("""
        an upload and a preference change log the student's pseudonym and nowhere their id; an expired and a revoked token \
        are one notice line each, with the reason, the client's address and the pseudonymised path
        """)
    func pseudonymsAndRefusals() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let recorder = LogRecorder()
        var logger = recorder.logger
        logger.logLevel = .info
        let application = TilawaServer.makeApplication(api: daemon.api, logger: logger)
        let student = daemon.runtime.pseudonyms.student("S1001")
        #expect(student.hasPrefix("s_") && student != "S1001")
        let own = try await daemon.headers(.student, "S1001")
        let shortLived: HTTPFields = [.authorization: "Bearer \(try await daemon.token(.student, "S1001", ttl: 60))"]
        try await application.live { client in
            var upload = own
            upload[.contentType] = "audio/ogg"
            let accepted = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post, headers: upload,
                                                    body: try TestDaemon.fixture("speech.opus"))
            #expect(accepted.status == .created, "\(String(buffer: accepted.body))")
            var json = own
            json[.contentType] = "application/json"
            let changed = try await client.execute(uri: "/v1/students/S1001/preferences", method: .put, headers: json,
                                                   body: ByteBuffer(string: #"{"time_zone": "Asia/Dubai"}"#))
            #expect(changed.status == .ok, "\(String(buffer: changed.body))")

            // The short-lived token runs out; then the student signs out everywhere, which refuses the other.
            daemon.clock.advance(by: 120)
            let expired = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: shortLived)
            #expect(expired.status == .unauthorized && expired.json?["code"] as? String == "expired_token")
            let revoke = try await client.execute(uri: "/v1/students/S1001/sessions/revoke", method: .post, headers: own)
            #expect(revoke.status == .ok, "\(String(buffer: revoke.body))")
            let revoked = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: own)
            #expect(revoked.status == .unauthorized && revoked.json?["code"] as? String == "revoked_token")
        }

        let entries = recorder.all
        let accepted = try #require(entries.first { $0.message == "upload accepted" })
        #expect(accepted.metadata["student"] == student)
        let changed = try #require(entries.first { $0.message == "preferences changed" })
        #expect(changed.metadata["student"] == student && changed.metadata["by"] == "student:\(student)")
        let leaks = entries.filter { entry in entry.message.contains("S1001") || entry.metadata.values.contains { $0.contains("S1001") } }
        #expect(leaks.isEmpty, "the student's id in the log: \(leaks.map { "\($0.message) \($0.metadata)" })")

        let refused = entries.filter { $0.message == "request refused: not signed in" }
        #expect(refused.map { $0.metadata["reason"] } == ["expired_token", "revoked_token"], "\(refused.map(\.metadata))")
        for line in refused {
            #expect(line.level == .notice)
            #expect(line.metadata["client"] == "127.0.0.1")
            #expect(line.metadata["method"] == "GET" && line.metadata["path"] == "/v1/students/\(student)/timeline")
            #expect(line.metadata["status"] == "401" && line.metadata["principal"] == "-")
        }
        #expect(refused.first?.metadata["detail"]?.contains("expired at") == true)
        #expect(!entries.contains { $0.message == "request" && $0.metadata["status"] == "401" }, "one line per refused request")
    }
}
