import Foundation
import Hummingbird
import Testing
@testable import TilawaDaemon
import TilawaTestSupport

/// A request refused for its credentials costs the server nothing of its body.
@Suite("Refused credentials are answered before the body, and a large body is never read")
struct AuthRefusalBodyTests {
    @Test("no token, or a bad one, on an upload of 1 GB declared: 401 at once and the connection closed, the body never read",
          arguments: ["", "Authorization: Bearer not-a-token\r\n"])
    func unauthenticatedBodyNotRead(authorization: String) async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let socket = try RawHTTPConnection(port: client.port)
            defer { socket.close() }
            try socket.send("POST /v1/students/S1001/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\n\(authorization)"
                + "Content-Type: audio/wav\r\nContent-Length: 1000000000\r\n\r\n")
            try socket.send(Data(repeating: 0x52, count: 64 * 1024))
            let answer = await socket.read(until: "\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer.prefix(80))")
            // The rest of the declared gigabyte never comes: a server that waited for it would never close.
            #expect(await socket.closedByServer(), "the connection stayed open for a body nobody should read")
        }
    }
}
