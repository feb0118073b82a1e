import Foundation
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaTestSupport

/// The desk in a real browser: Debian's headless Chromium, driven by Selenium from the test
/// virtual environment (`Tests/browser/desk_flow.py`), against a live daemon. Screenshots of
/// each screen at 1280×800 and 390×844 are left in `.build/desk-screenshots/` to look at.
@Suite("The coach's desk in Chromium (Selenium, headless)")
struct DeskBrowserTests {
    @Test("sign in by the link's button with the keyboard, the queue lists the coach's student, the oldest recording's review by keyboard (play, seek, 0.75×, ayahs in Arabic), a used link is refused, sign-out ends the session, another coach sees none of it")
    func deskFlows() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().test(.live) { client in
            let port = try #require(client.port)
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(upload.status == .created)
            let oldest = try #require(upload.json?["id"] as? String)
            // A newer recording beside it (week 11, a minute later): the review flow opens the oldest.
            daemon.clock.advance(by: 60)
            let newer = try await client.execute(uri: "/v1/students/S1001/weeks/11/submissions", method: .post,
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(newer.status == .created)
            let newerId = try #require(newer.json?["id"] as? String)
            // The review plays the encoded audio and draws its stored peaks: both are encoded first.
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: oldest)?.state == .awaitingFeedback })
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: newerId)?.state == .awaitingFeedback })
            let base = "http://127.0.0.1:\(port)"
            func link(_ coach: String) async throws -> String {
                let issued = try #require(try await LoginLinks(runtime: daemon.runtime).issue(coachId: coach, now: daemon.clock.now))
                // The configured origin has port 0 in tests: the same link on the live port.
                return base + "/desk/login?token=" + String(try #require(issued.url.split(separator: "=").last))
            }
            let shots = packageRoot.appendingPathComponent(".build/desk-screenshots").path
            let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
            let script = packageRoot.appendingPathComponent("Tests/browser/desk_flow.py").path
            let result = try await runProcess(python, [script, base, try await link("C01"), try await link("C02"), shots, oldest], timeout: 600)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        }
    }
}
