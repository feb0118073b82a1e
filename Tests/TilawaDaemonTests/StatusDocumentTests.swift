import Foundation
import Testing
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

@Suite("Status report: the JSON and openapi/openapi.yaml agree")
struct StatusDocumentTests {
    /// The `required: [...]` list of a schema in the OpenAPI document (it may span lines).
    private func required(_ schema: String, in document: String) throws -> Set<String> {
        let lines = document.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "    \(schema):"), "no schema \(schema)")
        var text = ""
        for line in lines[(start + 1)...] {
            if line.hasPrefix("    ") && !line.hasPrefix("     ") { break }
            if !text.isEmpty || line.hasPrefix("      required: [") {
                text += line
                if line.contains("]") { break }
            }
        }
        let inside = try #require(text.split(separator: "[").last?.split(separator: "]").first, "\(schema) has no required list")
        return Set(inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    @Test("Every object of the report has exactly the members its schema requires")
    func membersMatchSchemas() async throws {
        let document = try String(contentsOfFile: packageRoot.appendingPathComponent("openapi/openapi.yaml").path, encoding: .utf8)
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try StatusSeed(database: daemon.runtime.database)
            .submission("s", student: "S1001", state: "awaiting_feedback", receivedAt: TestDaemon.midSemester - 60,
                        audioPath: "submissions/s.opus", audioBytes: 10)
        try daemon.runtime.database.recordArtifactSweep(missing: 0, at: TestDaemon.midSemester)
        let report = await StatusReporter(configuration: daemon.runtime.configuration)
            .report(now: TestDaemon.midSemester, probe: DaemonProbe(url: "http://127.0.0.1:\(try unusedPort())/readyz"))
        let root = try #require(try JSONSerialization.jsonObject(with: try APIJSON.encoder().encode(report)) as? [String: Any])

        func object(_ path: [String]) throws -> [String: Any] {
            var current: Any = root
            for key in path {
                if key == "0" {
                    current = try #require((current as? [Any])?.first, "\(path)")
                } else {
                    current = try #require((current as? [String: Any])?[key], "\(path)")
                }
            }
            return try #require(current as? [String: Any], "\(path)")
        }
        let schemas: [(String, [String])] = [
            ("StatusReport", []), ("StatusDaemon", ["daemon"]), ("StatusUploads", ["uploads"]),
            ("StatusUploadCounts", ["uploads", "last_24h"]), ("StatusBacklog", ["awaiting_feedback"]),
            ("StatusOverdue", ["overdue"]), ("StatusEncodeQueue", ["encode_queue"]), ("StatusCluster", ["cluster"]), ("StatusDropbox", ["dropbox"]),
            ("StatusNotifications", ["notifications"]), ("StatusDisk", ["disk"]), ("StatusDatabase", ["database"]),
            ("StatusMissingArtifacts", ["missing_artifacts"]), ("StatusBackup", ["backup"]), ("StatusCheck", ["checks", "0"]),
        ]
        for (schema, path) in schemas {
            #expect(Set(try object(path).keys) == (try required(schema, in: document)), "\(schema)")
        }
        let sweep = try object(["missing_artifacts", "last_full_sweep"])
        #expect(Set(sweep.keys) == ["swept_at", "count"])
        let checkNames = try #require(root["checks"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(checkNames == ["state_dir", "database", "daemon", "feedback_overdue", "encode_jobs", "notifications",
                               "dropbox_rejections", "disk_space", "missing_artifacts", "backup", "erasure_requests"])
        // The daemon looking at itself asks the store too: its check follows the daemon's (from
        // the command line only once the daemon answered 200).
        let own = await StatusReporter(configuration: daemon.runtime.configuration)
            .report(now: TestDaemon.midSemester, database: daemon.runtime.database, startedAt: TestDaemon.midSemester)
        let ownNames = own.checks.map(\.name)
        #expect(ownNames == ["state_dir", "database", "daemon", "artifact_store", "feedback_overdue", "encode_jobs", "notifications",
                             "dropbox_rejections", "disk_space", "missing_artifacts", "backup", "erasure_requests"])
        #expect(document.contains("enum: [\(ownNames.joined(separator: ", "))]"))
        let ownDaemon = try #require(try JSONSerialization.jsonObject(with: try APIJSON.encoder().encode(own.daemon)) as? [String: Any])
        #expect(Set(ownDaemon.keys) == (try required("StatusDaemon", in: document)))
        #expect((ownDaemon["failing_checks"] as? [Any])?.isEmpty == true, "\(ownDaemon)")
    }
}
