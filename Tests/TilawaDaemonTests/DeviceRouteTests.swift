import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Phones registered for pushes (DESIGN §14): one row per token, ten a person, gone with an erasure.
@Suite("Devices over HTTP: registered, updated, moved, limited, signed out, erased")
struct DeviceRouteTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    @Test("""
        PUT registers (201) then updates (200, the first registration time kept, the token not said back); a token registered \
        for another student moves there; an eleventh device replaces the one updated longest ago (named in a header); \
        DELETE signs out (204, then 404); an erased student's devices are gone
        """)
    func lifecycle() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let json = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])
            func put(_ student: String, _ device: String, _ body: String) async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/students/\(student)/devices/\(device)", method: .put,
                                         headers: try await daemon.headers(.student, student, [.contentType: "application/json"]),
                                         body: ByteBuffer(string: body))
            }
            func devices(_ student: String) async throws -> [[String: Any]] {
                let listed = try await client.execute(uri: "/v1/students/\(student)/devices", method: .get, headers: try await daemon.headers(.ops, "ops"))
                #expect(listed.status == .ok)
                return listed.json?["devices"] as? [[String: Any]] ?? []
            }

            let created = try await put("S1001", "phone", #"{"platform": "ios", "token": "\#(Self.token(1).uppercased())", "locale": "ar-EG"}"#)
            #expect(created.status == .created)
            #expect(created.json?["device_id"] as? String == "phone" && created.json?["locale"] as? String == "ar-EG")
            #expect(created.json?["token"] == nil, "the token is not said back")
            let registeredAt = created.json?["registered_at"] as? String
            daemon.clock.advance(by: 60)
            let updated = try await put("S1001", "phone", #"{"platform": "ios", "token": "\#(Self.token(2))", "app_version": "2.4.1"}"#)
            #expect(updated.status == .ok)
            #expect(updated.json?["registered_at"] as? String == registeredAt && updated.json?["updated_at"] as? String != registeredAt)
            #expect(updated.json?["locale"] == nil, "what the body leaves out is not kept: the app says all of it each time")
            let stored = try await daemon.runtime.database.devices(owner: .student, ownerId: "S1001")
            #expect(stored.map(\.token) == [Self.token(2)])

            // The phone passes to another student (signed out without a DELETE): the token moves.
            let moved = try await put("S1002", "family-phone", #"{"platform": "ios", "token": "\#(Self.token(2))"}"#)
            #expect(moved.status == .created)
            #expect(try await devices("S1001").isEmpty, "S1001 no longer gets pushes on a phone S1002 now uses")
            #expect(try await devices("S1002").map { $0["device_id"] as? String } == ["family-phone"])

            // Ten at most: the eleventh replaces the one updated longest ago.
            for n in 0..<10 {
                daemon.clock.advance(by: 1)
                #expect(try await put("S1001", "d\(n)", #"{"platform": "android", "token": "fcm-\#(n)"}"#).status == .created)
            }
            daemon.clock.advance(by: 1)
            #expect(try await put("S1001", "d0", #"{"platform": "android", "token": "fcm-0"}"#).status == .ok, "d0 touched: now the newest")
            daemon.clock.advance(by: 1)
            let eleventh = try await put("S1001", "d10", #"{"platform": "android", "token": "fcm-10"}"#)
            #expect(eleventh.status == .created && eleventh.headers[.tilawaReplacedDevice] == "d1")
            let ids = Set(try await devices("S1001").compactMap { $0["device_id"] as? String })
            #expect(ids.count == 10 && !ids.contains("d1") && ids.contains("d0") && ids.contains("d10"), "\(ids.sorted())")

            // Refusals change nothing.
            for (body, code) in [(#"{"platform": "ios", "token": "abc"}"#, "invalid_device_token"),
                                 (#"{"platform": "android", "token": "has space"}"#, "invalid_device_token"),
                                 (#"{"platform": "android", "token": "t", "environment": "sandbox"}"#, "invalid_body"),
                                 (#"{"platform": "ios", "token": "\#(Self.token(3))", "pin": 1}"#, "invalid_body"),
                                 (#"{"platform": "ios", "token": "\#(Self.token(3))", "locale": "ar EG"}"#, "invalid_body"),
                                 (#"{"token": "\#(Self.token(3))"}"#, "invalid_body"), (#"[]"#, "invalid_body")] {
                let refused = try await client.execute(uri: "/v1/students/S1001/devices/d10", method: .put, headers: json, body: ByteBuffer(string: body))
                #expect(refused.json?["code"] as? String == code, "\(body): \(refused.status)")
            }
            #expect(try await client.execute(uri: "/v1/students/S1001/devices/" + String(repeating: "x", count: 65), method: .put, headers: json,
                                             body: ByteBuffer(string: #"{"platform": "android", "token": "t"}"#)).json?["code"] as? String == "invalid_device_id")
            #expect(try await client.execute(uri: "/v1/students/S1002/devices/x", method: .put, headers: json,
                                             body: ByteBuffer(string: #"{"platform": "android", "token": "t"}"#)).status == .notFound)
            #expect(Set(try await devices("S1001").compactMap { $0["device_id"] as? String }) == ids)

            // Signed out.
            let signOut = try await daemon.headers(.student, "S1001")
            #expect(try await client.execute(uri: "/v1/students/S1001/devices/d10", method: .delete, headers: signOut).status == .noContent)
            let again = try await client.execute(uri: "/v1/students/S1001/devices/d10", method: .delete, headers: signOut)
            #expect(again.status == .notFound && again.json?["code"] as? String == "unknown_device")

            // Erased: every device of theirs goes with them; another student's stay.
            guard case .success = try await daemon.runtime.database.erase(studentId: "S1001", force: true, by: "ops", reason: "asked", now: daemon.clock.now) else {
                Issue.record("not erased")
                return
            }
            #expect(try await daemon.runtime.database.devices(owner: .student, ownerId: "S1001").isEmpty)
            #expect(try await devices("S1002").count == 1)
        }
    }

    @Test("A coach registers and signs out their own phone; another coach, a student and ops may not register one for them")
    func coaches() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let body = ByteBuffer(string: #"{"platform": "android", "token": "coach-token"}"#)
            let own = try await client.execute(uri: "/v1/coaches/C01/devices/tablet", method: .put,
                                               headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]), body: body)
            #expect(own.status == .created)
            for (role, subject, status) in [(Role.coach, "C02", HTTPResponse.Status.notFound), (.student, "S1001", .forbidden), (.ops, "ops", .forbidden)] {
                let refused = try await client.execute(uri: "/v1/coaches/C01/devices/tablet", method: .put,
                                                       headers: try await daemon.headers(role, subject, [.contentType: "application/json"]), body: body)
                #expect(refused.status == status, "\(role) \(subject)")
            }
            let listed = try await client.execute(uri: "/v1/coaches/C01/devices", method: .get, headers: try await daemon.headers(.ops, "ops"))
            #expect((listed.json?["devices"] as? [[String: Any]])?.count == 1)
            #expect(try await client.execute(uri: "/v1/coaches/C01/devices/tablet", method: .delete,
                                             headers: try await daemon.headers(.coach, "C01")).status == .noContent)
            #expect(try await daemon.runtime.database.devices(owner: .coach, ownerId: "C01").isEmpty)
        }
    }
}
