import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Erasure (DESIGN §12): the student's audio and words are gone from the state directory and
/// every route, ids and counts stay, and an older backup restored cannot bring them back.
@Suite("Erasure: nothing of the student remains, and a restore of an older backup erases them again",
       .enabled(if: TestEngine.current == .sqlite, "it restores a backup, which is SQLite's"))
struct ErasureTests {
    private func walk(_ root: String) -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let name = enumerator?.nextObject() as? String { found.append(name) }
        return found
    }

    @Test("Refused while enrolled unless forced; then 404 everywhere, no file left, no name or words; restored from before, erased again")
    func erase() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        let backups = daemon.scratch.path("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        let maker = BackupMaker(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
        let (submission, feedback) = try await daemon.application().live { client -> (String, String) in
            let (submission, feedback) = try await daemon.answeredRecording(client)
            _ = try await client.execute(uri: "/v1/submissions/\(submission)/annotations", method: .post,
                                         headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]),
                                         body: ByteBuffer(string: #"{"at_seconds": 2, "kind": "tajweed", "text": "Aisha, the madd."}"#))
            _ = try await client.execute(uri: "/v1/feedback/\(feedback)/comments", method: .post,
                                         headers: try await daemon.headers(.student, "S1001", [.contentType: "application/json"]),
                                         body: ByteBuffer(string: #"{"text": "Thank you, this is Aisha"}"#))
            let paths: [String] = try await daemon.runtime.database.engine.read { db in
                try String.fetchAll(db, sql: """
                    SELECT originalPath FROM submission WHERE studentId = 'S1001' AND originalPath IS NOT NULL
                    UNION ALL SELECT audioPath FROM submission WHERE studentId = 'S1001' AND audioPath IS NOT NULL
                    UNION ALL SELECT waveformPath FROM submission WHERE studentId = 'S1001' AND waveformPath IS NOT NULL
                    UNION ALL SELECT audioPath FROM feedback WHERE submissionId = ? AND audioPath IS NOT NULL
                    UNION ALL SELECT originalPath FROM feedback WHERE submissionId = ? AND originalPath IS NOT NULL
                    """, arguments: [submission, submission])
            }
            #expect(paths.count >= 4)
            let before = daemon.clock.now
            _ = try await onOwnThread { try maker.create(at: backups + "/before", now: before) }

            let uri = "/v1/students/S1001/erasure"
            func erase(_ body: String, as role: Role = .ops, _ subject: String = "amina") async throws -> LiveAnswer {
                try await client.execute(uri: uri, method: .post, headers: try await daemon.headers(role, subject, [.contentType: "application/json"]),
                                         body: ByteBuffer(string: body))
            }
            #expect(try await erase(#"{"reason": "x"}"#, as: .student, "S1001").status == .forbidden)
            #expect(try await erase(#"{"reason": "x"}"#, as: .coach, "C01").status == .forbidden)
            let refused = try await erase(#"{"reason": "Asked by the student's parent"}"#)
            #expect(refused.status == .conflict && refused.json?["code"] as? String == "open_enrolment")
            #expect(try await erase(#"{"force": true}"#).json?["code"] as? String == "reason_required")
            let erased = try await erase(#"{"reason": "Asked by the student's parent", "force": true}"#)
            #expect(erased.status == .ok && erased.json?["recordings"] as? Int == 1, "\(String(buffer: erased.body))")

            for (route, role, subject) in [("/v1/submissions/\(submission)/audio", Role.student, "S1001"), ("/v1/submissions/\(submission)/audio", .ops, "ops"),
                                           ("/v1/submissions/\(submission)/waveform", .coach, "C01"), ("/v1/feedback/\(feedback)/audio", .ops, "ops"),
                                           ("/v1/submissions/\(submission)", .ops, "ops"), ("/v1/students/S1001/timeline", .ops, "ops"),
                                           ("/v1/students/S1001/export", .student, "S1001")] {
                let answer = try await client.execute(uri: route, method: .get, headers: try await daemon.headers(role, subject))
                // The student's own tokens name no one any more (401 before any route); staff are told 404.
                if role == .student {
                    #expect(answer.status == .unauthorized && answer.json?["code"] as? String == "unknown_subject", "\(route) as \(role)")
                } else {
                    #expect(answer.status == .notFound, "\(route) as \(role)")
                }
            }
            let artifacts = daemon.runtime.stateDirectory.artifacts.path
            for path in paths { #expect(!FileManager.default.fileExists(atPath: artifacts + "/" + path), "\(path)") }
            let left = walk(daemon.runtime.stateDirectory.root.path)
            #expect(!left.contains { $0.contains(submission) || $0.contains(feedback) }, "\(left)")
            let words: Int = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM student WHERE name LIKE '%Aisha%')
                         + (SELECT COUNT(*) FROM event WHERE CAST(payload AS TEXT) LIKE '%Aisha%')
                         + (SELECT COUNT(*) FROM comment WHERE text LIKE '%Aisha%')
                         + (SELECT COUNT(*) FROM annotation WHERE text LIKE '%Aisha%')
                         + (SELECT COUNT(*) FROM event WHERE studentId = 'S1001' AND deliveredAt IS NULL)
                    """) ?? -1
            }
            #expect(words == 0)
            // Counts stay: the recording is still a row (an id, a state, an instant).
            #expect(try await daemon.runtime.database.submission(id: submission)?.audioPath == nil)
            let audit = try await client.execute(uri: "/v1/audit?student=S1001&limit=1", method: .get, headers: try await daemon.headers(.ops, "ops"))
            #expect((audit.json?["entries"] as? [[String: Any]])?.first?["action"] as? String == "student_erased")
            return (submission, feedback)
        }

        // A newer backup carries the ledger; the older one, restored, erases S1001 again.
        let after = daemon.clock.now
        _ = try await onOwnThread { try maker.create(at: backups + "/after", now: after) }
        let restored = daemon.scratch.path("restored")
        let report = try await onOwnThread { try BackupRestorer.restore(from: backups + "/before", to: restored, now: after) }
        #expect(report.erasedAgain == ["S1001"])
        let copy = try DatabaseQueue(path: restored + "/tilawa.sqlite")
        let (name, audio) = try await copy.read { db in
            (try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = 'S1001'"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1001' AND audioPath IS NOT NULL"))
        }
        try copy.close()
        #expect(name == "" && audio == 0)
        let inBackup = try BackupVerifier.readManifest(backups + "/before").files.map(\.path)
            .filter { $0.contains(submission) || $0.contains(feedback) }
        #expect(inBackup.count >= 4, "the older backup held them")
        for path in inBackup { #expect(!FileManager.default.fileExists(atPath: restored + "/" + path), "\(path) restored") }
    }
}
