import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// `artifacts.url: file:///absolute/path` (DESIGN §13: a filesystem the nodes share, e.g.
/// NFS): the artifacts live there, not in the state directory, through the same disk storage.
@Suite("Artifacts in a shared directory (file:///path)", .heavy)
struct SharedDirectoryArtifactsTests {
    /// Sunday 22 November 2026 15:00 UTC: week 12 of fall 2026 open.
    static let programmeClock = "\(Int(ISO8601DateFormatter().date(from: "2026-11-22T15:00:00Z")!.timeIntervalSince1970)),1"

    @Test("""
        A recording's original, Ogg and peaks land in the shared directory and none in the state directory; the audio is served \
        from there; backup refuses (78) naming the directory; a file: URL with a host, a relative or a .. path is refused (78); \
        a directory that is not there (an unmounted share) keeps the node out of rotation (/readyz 503)
        """)
    func sharedDirectory() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        // The mount point is there (a daemon never makes it: an absent one is an unmounted share).
        let shared = state.scratch.path("shared artifacts")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let environment = ["TILAWA_ARTIFACTS_URL": "file://" + shared.replacingOccurrences(of: " ", with: "%20"),
                           "TILAWA_TEST_CLOCK": Self.programmeClock]
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let token = try await state.run(["token", "issue", "--student", "S1001"], environment: environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let http = S3ArtifactsTests()
        let posted = try await http.send("POST", daemon.port, "/v1/students/S1001/weeks/12/submissions", token: token,
                                         body: try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech_mono_s16_48k.wav"))))
        #expect(posted.status == 201, "\(String(decoding: posted.body, as: UTF8.self))")
        let id = try #require(((try? JSONSerialization.jsonObject(with: posted.body)) as? [String: Any])?["id"] as? String)
        let submission = try #require(try await state.submission(id, reaching: "awaiting_feedback"))
        #expect(submission["state"] == "awaiting_feedback", "\(daemon.log)")
        let original: String = try #require(submission["originalPath"]), audio: String = try #require(submission["audioPath"])
        let waveform: String = try #require(submission["waveformPath"])
        for path in [original, audio, waveform] {
            #expect(FileManager.default.fileExists(atPath: shared + "/" + path), "\(path) in the shared directory")
        }
        let local = try await runProcess("/usr/bin/find", [state.stateDirectory + "/artifacts", "-type", "f"])
        #expect(local.stdout.isEmpty, "nothing in the state directory's artifacts: \(local.stdout)")

        let whole = try await http.send("GET", daemon.port, "/v1/submissions/\(id)/audio", token: token)
        let stored = try Data(contentsOf: URL(fileURLWithPath: shared + "/" + audio))
        #expect(whole.status == 200 && whole.body == stored)
        let part = try await http.send("GET", daemon.port, "/v1/submissions/\(id)/audio", token: token, headers: [("Range", "bytes=10-19")])
        #expect(part.status == 206 && part.body.count == 10)

        let backup = try await state.run(["backup", "create", state.scratch.path("backup")], environment: environment)
        #expect(backup.status == 78 && backup.stderr.contains("outside the state directory"), "\(backup.status) \(backup.stderr)")

        _ = await daemon.terminate()  // one daemon at a time holds a state directory
        let unmounted = try ServeProcess(state: state, port: try unusedPort(),
                                         environment: ["TILAWA_ARTIFACTS_URL": "file://" + state.scratch.path("not-mounted")])
        defer { unmounted.process.signal(SIGKILL) }
        var readiness = ""
        let deadline = ContinuousClock.now + TestTime.hangLimit
        while readiness != "503", ContinuousClock.now < deadline, unmounted.process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
            readiness = try await runProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}",
                                                               "http://127.0.0.1:\(unmounted.port)/readyz"]).stdout
        }
        #expect(readiness == "503", "\(readiness): \(unmounted.log)")
        #expect(!FileManager.default.fileExists(atPath: state.scratch.path("not-mounted")), "never made in place of a mount")

        for bad in ["file://host/srv/artifacts", "file:relative/path", "file:///srv/../etc", "file:///"] {
            let refused = try await state.run(["serve"], environment: ["TILAWA_ARTIFACTS_URL": bad, "TILAWA_HTTP_PORT": "\(try unusedPort())"])
            #expect(refused.status == 78 && refused.stderr.contains("artifacts.url"), "\(bad): \(refused.status) \(refused.stderr)")
        }
    }
}
