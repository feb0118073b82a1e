import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A student's own archive (DESIGN §12): a zip `unzip -t` accepts, an index valid against the
/// schema in the repository, a page Chromium plays offline — and nothing of anyone else.
@Suite("The student's archive: GET /v1/students/{id}/export and its zip")
struct ExportRouteTests {
    static let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
    static let schema = packageRoot.appendingPathComponent("docs/export/index.schema.json").path

    @Test("The student's recording, the coach's reply with its mark and the question: unzip -t, the schema, Chromium plays it; only theirs")
    func archive() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let zip = daemon.scratch.path("s1001.zip")
        let folder = daemon.scratch.path("s1001")
        let (ids, someoneElse) = try await daemon.application().live { client -> ((submission: String, feedback: String), String) in
            let ids = try await daemon.answeredRecording(client)
            let mark = try await client.execute(uri: "/v1/submissions/\(ids.submission)/annotations", method: .post,
                                                headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]),
                                                body: ByteBuffer(string: #"{"at_seconds": 2, "kind": "tajweed", "text": "Hold the madd <2 counts>."}"#))
            #expect(mark.status == .created)
            let question = try await client.execute(uri: "/v1/feedback/\(ids.feedback)/comments", method: .post,
                                                    headers: try await daemon.headers(.student, "S1001", [.contentType: "application/json"]),
                                                    body: ByteBuffer(string: #"{"text": "Which ayah?"}"#))
            #expect(question.status == .created)
            let other = try await client.execute(uri: "/v1/students/S1002/weeks/12/submissions", method: .post,
                                                 headers: try await daemon.headers(.student, "S1002", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            let someoneElse = other.json?["id"] as? String ?? "none"

            for (role, subject, status) in [(Role.coach, "C01", HTTPResponse.Status.forbidden), (.student, "S1002", .notFound),
                                             (.ops, "ops", .ok)] {
                let answer = try await client.execute(uri: "/v1/students/S1001/export", method: .get, headers: try await daemon.headers(role, subject))
                #expect(answer.status == status, "\(role) \(subject)")
            }
            let export = try await client.execute(uri: "/v1/students/S1001/export", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(export.status == .ok && export.headers[.contentType] == "application/zip")
            #expect(export.headers[.contentDisposition] == "attachment; filename=\"tilawa-S1001.zip\"")
            try Data(buffer: export.body).write(to: URL(fileURLWithPath: zip))
            return (ids, someoneElse)
        }
        let tested = try await runProcess("/usr/bin/unzip", ["-t", zip])
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        let names = try await runProcess("/usr/bin/unzip", ["-Z1", zip]).stdout.split(separator: "\n").map(String.init)
        #expect(Set(names).isSuperset(of: ["index.json", "index.html", "recordings/\(ids.submission).ogg", "replies/\(ids.feedback).ogg"]))
        #expect(!names.contains { $0.contains(someoneElse) }, "nothing of S1002's")
        #expect(names.allSatisfy { $0.range(of: #"^(index\.(json|html)|(recordings|replies|marks|thread)/[A-Za-z0-9_-]+\.(ogg|m4a))$"#, options: .regularExpression) != nil },
                "\(names)")
        #expect(try await runProcess("/usr/bin/unzip", ["-q", zip, "-d", folder]).status == 0)

        let validation = try await runProcess(Self.python, ["-c", """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); index = json.load(open(sys.argv[2]))
            jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(index)
            recording = index["recordings"][0]
            assert len(index["recordings"]) == 1, index
            assert recording["replies"][0]["thread"][0]["text"] == "Which ayah?", recording
            assert recording["marks"][0]["text"] == "Hold the madd <2 counts>.", recording
            print("valid")
            """, Self.schema, folder + "/index.json"])
        #expect(validation.status == 0 && validation.stdout.contains("valid"), "\(validation.stdout)\(validation.stderr)")
        let page = try String(contentsOfFile: folder + "/index.html", encoding: .utf8)
        #expect(page.contains("Hold the madd &lt;2 counts&gt;.") && !page.contains("<2 counts>"), "text is escaped")

        let shots = packageRoot.appendingPathComponent(".build/desk-screenshots").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let played = try await runProcess(Self.python, [packageRoot.appendingPathComponent("Tests/browser/export_play.py").path, folder, shots],
                                          timeout: 180)
        #expect(played.status == 0, "\(played.stdout)\(played.stderr)")
    }

    @Test("ZIP64 fields where sizes or offsets would pass 4 GiB (forced low here): unzip -t and Python's zipfile read it; a hostile name stays text")
    func zip64AndHostileName() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            _ = try await daemon.answeredRecording(client)
        }
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE student SET name = ? WHERE id = 'S1001'", arguments: ["../../../etc/passwd <script>x</script>"])
        }
        let archive = try #require(try await StudentArchive.load(daemon.runtime.database, studentId: "S1001",
                                                                 artifacts: daemon.runtime.stateDirectory.artifactStore, now: daemon.clock.now))
        let zip = daemon.scratch.path("zip64.zip")
        FileManager.default.createFile(atPath: zip, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: zip))
        try await archive.write(zip64Threshold: 1) { bytes in try handle.write(contentsOf: bytes) }
        try handle.close()
        let tested = try await runProcess("/usr/bin/unzip", ["-t", zip])
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        let python = try await runProcess(Self.python, ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                names = z.namelist()
                assert all(not n.startswith('/') and '..' not in n for n in names), names
                assert b'&lt;script&gt;' in z.read('index.html')
                print(len(names))
            """, zip])
        #expect(python.status == 0, "\(python.stdout)\(python.stderr)")
    }
}
