import Crypto
import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// `tilawa backup create|verify` and `tilawa restore` through the binary (DESIGN §12): a whole
/// backup verifies and restores; a damaged one fails both, naming the file.
/// SQLite only: `tilawa backup` copies the state directory's SQLite file (on PostgreSQL it is refused, 78).
@Suite("Backup commands: create, verify, restore; damage is found and named", .heavy)
struct BackupCommandTests {
    static let now = "2026-11-22 15:00:00"

    /// A state with two encoded recordings and a whole backup of it.
    private func backedUp() async throws -> (CommandLineStateFixture, String) {
        let state = try await CommandLineStateFixture(engine: .sqlite)
        for student in ["S1001", "S1002"] {
            let ingested = try await state.run(["ingest", "--student", student, "--week", "12", CommandLineStateFixture.fixture("speech.opus")], at: Self.now)
            #expect(ingested.status == 0, "\(ingested.stderr)")
        }
        let backup = state.scratch.path("backup")
        let made = try await state.run(["backup", "create", backup], at: Self.now)
        #expect(made.status == 0, "\(made.stderr)")
        return (state, backup)
    }

    private func files(in backup: String) throws -> [String] {
        let root = backup + "/files"
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue { found.append(name) }
        }
        return found.sorted()
    }

    @Test("A whole backup verifies, restores into a new directory, and a second one hard-links what did not change")
    func whole() async throws {
        let (state, backup) = try await backedUp()
        defer { state.remove() }
        let verified = try await state.run(["backup", "verify", backup])
        #expect(verified.status == 0 && verified.stdout.contains("whole, "), "\(verified.stdout)\(verified.stderr)")
        let stored = try files(in: backup)
        #expect(stored.contains { $0.hasSuffix(".opus") && $0.hasPrefix("artifacts/submissions/") })
        #expect(stored.contains { $0.hasPrefix("artifacts/originals/") } && stored.contains { $0.hasSuffix(".json") || $0.contains("waveform") })

        let second = state.scratch.path("backup-2")
        let again = try await state.run(["backup", "create", second, "--previous", backup], at: Self.now)
        #expect(again.status == 0 && again.stdout.contains("0 bytes copied, \(stored.count) linked"), "\(again.stdout)")
        let restored = state.scratch.path("restored")
        let restore = try await state.run(["restore", second, "--state-dir", restored])
        #expect(restore.status == 0 && restore.stdout.contains("supply them: auth.jwt_key_file"), "\(restore.stdout)\(restore.stderr)")
        for path in stored { #expect(FileManager.default.fileExists(atPath: restored + "/" + path), "\(path)") }
        // The restored directory is a state directory the tools read.
        let status = try await state.run(["status", "--json"], environment: ["TILAWA_STATE_DIR": restored])
        #expect(status.stdout.contains("\"database\""), "\(status.stdout)\(status.stderr)")
        #expect(try await state.run(["backup", "create", second]).status == 73, "a backup never overwrites one")
    }

    @Test("restore --erasures: an erasure newer than every backup is applied from the live state directory or a `tilawa erase --list` file; without it the output says so")
    func restoreWithLiveLedger() async throws {
        let (state, backup) = try await backedUp()
        defer { state.remove() }
        let erased = try await state.run(["erase", "--student", "S1001", "--confirm", "--force", "--reason", "Asked by the family", "--by", "ops"], at: Self.now)
        try #require(erased.status == 0, "\(erased.stderr)")
        func name(in directory: String) throws -> String? {
            let queue = try DatabaseQueue(path: directory + "/tilawa.sqlite")
            defer { try? queue.close() }
            return try queue.read { db in try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = 'S1001'") }
        }

        let unaware = state.scratch.path("restored-unaware")
        let plain = try await state.run(["restore", backup, "--state-dir", unaware])
        #expect(plain.status == 0 && plain.stdout.contains("no --erasures given"), "\(plain.stdout)\(plain.stderr)")
        #expect(try name(in: unaware) == "Aisha Rahman", "without the live ledger the backup's student is back (and the output said so)")

        let fromState = state.scratch.path("restored-from-state")
        let live = try await state.run(["restore", backup, "--state-dir", fromState, "--erasures", state.stateDirectory])
        #expect(live.status == 0 && live.stdout.contains("erased again from the ledger (erased after this backup was made): S1001"),
                "\(live.stdout)\(live.stderr)")
        #expect(!live.stdout.contains("no --erasures given"))
        #expect(try name(in: fromState) == "")

        let list = try await state.run(["erase", "--list"])
        let ledger = state.scratch.path("ledger.txt")
        try ("# tilawa erase --list\n" + list.stdout).write(toFile: ledger, atomically: true, encoding: .utf8)
        let fromFile = state.scratch.path("restored-from-file")
        #expect(try await state.run(["restore", backup, "--state-dir", fromFile, "--erasures", ledger]).status == 0)
        #expect(try name(in: fromFile) == "")

        try "S1001\n../etc\n".write(toFile: ledger, atomically: true, encoding: .utf8)
        let bad = try await state.run(["restore", backup, "--state-dir", state.scratch.path("restored-bad"), "--erasures", ledger])
        #expect(bad.status == 65 && bad.stderr.contains("ledger.txt:2"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state.scratch.path("restored-bad")), "nothing restored on a bad ledger")
        let missing = try await state.run(["restore", backup, "--state-dir", state.scratch.path("restored-none"), "--erasures", state.scratch.path("nowhere")])
        #expect(missing.status == 66, "\(missing.stderr)")

        // S1001 comes back, re-admitted as a new student, and a second backup is made. The live
        // ledger (and `erase --list`) still erases the old S1001 from the backup made before the
        // erasure, and leaves the new one in the backup made after the re-admission.
        let readmitted = try await state.run(["roster", "import", "--allow-erased", "S1001", CommandLineStateFixture.sample("students.csv")],
                                             at: Self.now)
        try #require(readmitted.status == 0 && readmitted.stdout.contains("kept apart as S1001-erased-1"), "\(readmitted.stdout)\(readmitted.stderr)")
        let listed = try await state.run(["erase", "--list"])
        #expect(listed.stdout.split(separator: "\n").map(String.init) == ["S1001", "S1001-erased-1"], "\(listed.stdout)")
        try ("# tilawa erase --list\n" + listed.stdout).write(toFile: ledger, atomically: true, encoding: .utf8)
        let after = state.scratch.path("backup-after-readmission")
        try #require(try await state.run(["backup", "create", after], at: Self.now).status == 0)
        for source in [state.stateDirectory, ledger] {
            let old = state.scratch.path("restored-old-\(source == ledger ? "file" : "state")")
            #expect(try await state.run(["restore", backup, "--state-dir", old, "--erasures", source]).status == 0)
            #expect(try name(in: old) == "", "the backup from before the erasure: the old S1001 is erased again")
            let new = state.scratch.path("restored-new-\(source == ledger ? "file" : "state")")
            let restored = try await state.run(["restore", after, "--state-dir", new, "--erasures", source])
            #expect(restored.status == 0 && !restored.stdout.contains("erased again"), "\(restored.stdout)\(restored.stderr)")
            #expect(try name(in: new) == "Aisha Rahman", "the backup from after the re-admission keeps the re-admitted student")
        }
    }

    @Test("restore names exactly the secret files the configuration reads, none that do not exist")
    func restoreNamesRealSecrets() async throws {
        let (state, backup) = try await backedUp()
        defer { state.remove() }
        let restored = try await state.run(["restore", backup, "--state-dir", state.scratch.path("restored")])
        let line = try #require(restored.stdout.split(separator: "\n").first { $0.hasPrefix("not in the backup, supply them:") })
        #expect(line.contains("auth.jwt_key_file") && line.contains("webhook.secret_file"), "\(line)")
        #expect(!line.contains("desk.session_key") && !line.contains("webhooks.secret"), "\(line)")
    }

    /// Rewrites the manifest's database size and SHA-256 (after a deliberate change to the
    /// copy) and lets `edit` change its JSON.
    private func rewriteManifest(_ backup: String, _ edit: (inout [String: Any]) -> Void = { _ in }) throws {
        let path = backup + "/manifest.json"
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let database = try Data(contentsOf: URL(fileURLWithPath: backup + "/tilawa.sqlite"))
        var entry = try #require(manifest["database"] as? [String: Any])
        entry["size"] = database.count
        entry["sha256"] = SHA256.hash(data: database).map { String(format: "%02x", $0) }.joined()
        manifest["database"] = entry
        edit(&manifest)
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    @Test("A backup of an older release is migrated on restore; one of a newer release is refused and nothing written")
    func versions() async throws {
        let (state, backup) = try await backedUp()
        defer { state.remove() }
        // The older release: before "erasure: ledger" (no erasure table, no student.erasedAt).
        let queue = try DatabaseQueue(path: backup + "/tilawa.sqlite")
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE erasure; ALTER TABLE student DROP COLUMN erasedAt; DELETE FROM grdb_migrations WHERE identifier = 'erasure: ledger'")
        }
        try queue.close()
        try rewriteManifest(backup) { $0["migrations"] = ($0["migrations"] as? [String] ?? []).filter { $0 != "erasure: ledger" } }
        #expect(try await state.run(["backup", "verify", backup]).status == 0)
        let restored = state.scratch.path("restored")
        let restore = try await state.run(["restore", backup, "--state-dir", restored])
        #expect(restore.status == 0, "\(restore.stderr)")
        let copy = try DatabaseQueue(path: restored + "/tilawa.sqlite")
        let (migrated, students) = try await copy.read { db in
            (try db.tableExists("erasure"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM student WHERE erasedAt IS NULL"))
        }
        try copy.close()
        #expect(migrated && (students ?? 0) > 0)

        // The newer release: a migration this one does not know.
        let newer = state.scratch.path("backup-newer")
        #expect(try await state.run(["backup", "create", newer], at: Self.now).status == 0)
        try rewriteManifest(newer) { $0["migrations"] = ($0["migrations"] as? [String] ?? []) + ["from the future"] }
        let target = state.scratch.path("restored-newer")
        let refused = try await state.run(["restore", newer, "--state-dir", target])
        #expect(refused.status == 65 && refused.stderr.contains("newer_version") && refused.stderr.contains("from the future"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("Files already missing from the state directory: twenty named on stderr, the rest counted, every one in the manifest")
    func missingAtSource() async throws {
        let state = try await CommandLineStateFixture(engine: .sqlite)
        defer { state.remove() }
        let ingested = try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")], at: Self.now)
        #expect(ingested.status == 0, "\(ingested.stderr)")
        // 25 rows whose three files were lost (a disk that failed before the backup was set up).
        let queue = try DatabaseQueue(path: state.stateDirectory + "/tilawa.sqlite")
        try await queue.write { db in
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('submission')")
            let id = try #require(try String.fetchOne(db, sql: "SELECT id FROM submission"))
            for n in 1...25 {
                let copy = "\(id)_lost\(n)"
                let select = columns.map { column -> String in
                    switch column {
                    case "id": "'\(copy)'"
                    case "state": "'superseded'"
                    case "originalPath", "audioPath", "waveformPath": "replace(\(column), '\(id)', '\(copy)')"
                    default: column
                    }
                }
                try db.execute(sql: "INSERT INTO submission (\(columns.joined(separator: ", "))) SELECT \(select.joined(separator: ", ")) FROM submission WHERE id = ?",
                               arguments: [id])
            }
        }
        try queue.close()
        let backup = state.scratch.path("backup")
        let made = try await state.run(["backup", "create", backup], at: Self.now)
        #expect(made.status == 0, "\(made.stderr)")
        let named = made.stderr.split(separator: "\n").filter { $0.hasSuffix("was already missing from the state directory") }
        #expect(named.count == 20 && made.stderr.contains("and 55 more files missing"), "\(made.stderr)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: backup + "/manifest.json"))) as? [String: Any])
        #expect((manifest["missing_at_source"] as? [String])?.count == 75)
        #expect(try await state.run(["backup", "verify", backup]).status == 0, "a backup that says what was already lost is whole")
    }

    @Test("Damage fails verify and restore with the file named", arguments: ["flipped byte", "missing file", "truncated manifest", "no manifest", "changed database"])
    func damaged(_ damage: String) async throws {
        let (state, backup) = try await backedUp()
        defer { state.remove() }
        let victim = try #require(try files(in: backup).first { $0.hasPrefix("artifacts/submissions/") })
        let path = backup + "/files/" + victim
        let named: String
        switch damage {
        case "flipped byte":
            var data = try Data(contentsOf: URL(fileURLWithPath: path))
            data[data.count / 2] ^= 0x01
            try data.write(to: URL(fileURLWithPath: path))
            named = victim
        case "missing file":
            try FileManager.default.removeItem(atPath: path)
            named = victim
        case "truncated manifest":
            let manifest = try Data(contentsOf: URL(fileURLWithPath: backup + "/manifest.json"))
            try manifest.prefix(manifest.count / 2).write(to: URL(fileURLWithPath: backup + "/manifest.json"))
            named = "manifest.json"
        case "no manifest":
            try FileManager.default.removeItem(atPath: backup + "/manifest.json")
            named = "manifest.json"
        default:
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: backup + "/tilawa.sqlite"))
            try handle.seek(toOffset: 4096)
            try handle.write(contentsOf: Data([0xFF, 0xFE, 0xFD]))
            try handle.close()
            named = "tilawa.sqlite"
        }
        let verify = try await state.run(["backup", "verify", backup])
        #expect([65, 66].contains(verify.status) && verify.stderr.contains(named), "\(damage): \(verify.status) \(verify.stderr)")
        let target = state.scratch.path("restored")
        let restore = try await state.run(["restore", backup, "--state-dir", target])
        #expect(restore.status == verify.status && restore.stderr.contains(named), "\(damage): \(restore.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "nothing restored from a damaged backup")
    }
}
