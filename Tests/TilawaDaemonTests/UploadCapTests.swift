import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaTestSupport

@Suite("Bounded load: uploads in flight")
struct UploadCapTests {
    @Test("past http.max_concurrent_uploads a new upload gets 503 with Retry-After at its request head, before the router; the gauge shows the level; a retry once a slot is free is taken")
    func cap() async throws {
        let daemon = try await TestDaemon {
            $0.http.maxConcurrentUploads = 2
            // The whole pool open to students: this is the global cap at the request head.
            $0.http.coachUploadSlots = 0
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            // Two uploads hold both slots: headers and part of the body, the rest withheld.
            let token = try await daemon.token(.student, "S1006")
            let held = try [RawHTTPConnection.partialUpload(port: port, token: token), RawHTTPConnection.partialUpload(port: port, token: token)]
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 2") })

            let body = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
            let third = try RawHTTPConnection(port: port)
            defer { third.close() }
            try third.send("POST /v1/students/S1001/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + "\(try await daemon.token(.student, "S1001"))\r\nContent-Type: audio/ogg\r\nContent-Length: \(body.count)\r\n"
                + "Expect: 100-continue\r\n\r\n")
            let refused = await third.read(until: "\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 503"), "got: \(refused.prefix(80))")
            #expect(refused.lowercased().contains("retry-after: 5") && refused.lowercased().contains("connection: close"))

            // A client that sends its whole body at once (no Expect, 3 MB) reads the 503 too,
            // instead of a reset connection.
            let eager = try RawHTTPConnection(port: port)
            defer { eager.close() }
            let bulk = Data(repeating: 0x41, count: 3_000_000)
            try eager.send("POST /v1/students/S1002/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + "\(try await daemon.token(.student, "S1002"))\r\nContent-Type: audio/wav\r\nContent-Length: \(bulk.count)\r\n\r\n")
            try eager.send(bulk)
            let eagerAnswer = await eager.read(until: "\r\n\r\n")
            #expect(eagerAnswer.hasPrefix("HTTP/1.1 503") && eagerAnswer.lowercased().contains("retry-after: 5"), "got: \(eagerAnswer.prefix(80))")

            // Refused at the request head, in the connection, before the router: not even the
            // token is looked at (an anonymous request would get 401 from the router), and a
            // resumable append is refused the same way.
            let anonymous = try RawHTTPConnection(port: port)
            defer { anonymous.close() }
            try anonymous.send("PATCH /v1/uploads/upl_x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n0123456789")
            let early = await anonymous.read(until: "\r\n\r\n")
            #expect(early.hasPrefix("HTTP/1.1 503") && early.lowercased().contains("content-type: application/problem+json"), "got: \(early.prefix(80))")

            // Other routes are not held up.
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)

            for socket in held { socket.close() }
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 0") })
            let retried = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                   headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                   body: ByteBuffer(bytes: body))
            #expect(retried.status == .created)
        }
    }
}
