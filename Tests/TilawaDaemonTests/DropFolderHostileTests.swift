import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Every entry under `root`, described by `lstat` (links are never followed): relative path
/// → kind, size, inode and mtime.
private func walk(_ root: String) -> [String: String] {
    var result: [String: String] = [:]
    func visit(_ relative: String) {
        let path = relative.isEmpty ? root : root + "/" + relative
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        result[relative] = "\(info.st_mode & S_IFMT) \(info.st_size) \(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        guard info.st_mode & S_IFMT == S_IFDIR else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            visit(relative.isEmpty ? name : relative + "/" + name)
        }
    }
    visit("")
    return result
}

/// Everything of the database file and its WAL as bytes, to look for a leaked secret.
private func databaseBytes(_ harness: DropFolderHarness) -> Data {
    let path = harness.daemon.runtime.stateDirectory.databasePath
    return ((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
}

/// A coach's folder is what that coach controls (an SFTP chroot, a synced folder): these are
/// the attacks a hostile coach can make from inside it, each answered without following a link.
@Suite("Coach drop folder: a hostile coach")
struct DropFolderHostileTests {
    private static let secret = "c2VjcmV0LWtleS1vZi10aGUtZGFlbW9uLTAxMjM0NTY3ODk="

    @Test("A notes file linked to the signing key or to a file outside the dropbox is refused unread; no secret reaches notes, reasons or the database")
    func notesSymlinks() async throws {
        let harness = try await DropFolderHarness(students: [("S1001", .week(8)), ("S1002", .week(8)), ("S1004", .week(8))])
        defer { harness.remove() }
        let keyFile = harness.daemon.scratch.path("var/secrets/jwt.key")
        try FileManager.default.createDirectory(atPath: (keyFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.secret.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let outside = harness.daemon.scratch.path("outside-notes.txt")
        try "PRIVATE: \(Self.secret)".write(toFile: outside, atomically: true, encoding: .utf8)
        let c02 = try harness.coachFolder("C02"), c03 = try harness.coachFolder("C03"), c01 = try harness.coachFolder("C01")

        try await harness.running {
            try FileManager.default.createSymbolicLink(atPath: c02 + "/S1002_w08.txt", withDestinationPath: keyFile)
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c02 + "/S1002_w08.opus")
            try FileManager.default.createSymbolicLink(atPath: c03 + "/S1004_w08.txt", withDestinationPath: outside)
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c03 + "/S1004_w08.opus")
            // The other coaches' work goes on.
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c01 + "/S1001_w08.opus")
            #expect(await harness.daemon.eventually {
                harness.contents(c02 + "/rejected").contains("S1002_w08.opus") && harness.contents(c03 + "/rejected").contains("S1004_w08.opus")
                    && harness.contents(c01 + "/processed").contains("S1001_w08.opus")
            })
        }
        #expect(try harness.feedbackCount() == 1)
        for (coach, file) in [("C02", "S1002_w08.opus"), ("C03", "S1004_w08.opus")] {
            let reason = try #require(harness.reason(coach, file))
            #expect(reason.contains("must be a plain text file"))
            #expect(!reason.contains(Self.secret))
        }
        let notes = try await harness.daemon.runtime.database.engine.read { db in try String?.fetchAll(db, sql: "SELECT notes FROM feedback") }
        #expect(notes.allSatisfy { $0 == nil })
        #expect(databaseBytes(harness).range(of: Data(Self.secret.utf8)) == nil)
        // The links moved with their replies, still links, their targets untouched.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: c02 + "/rejected/S1002_w08.txt") == keyFile)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == Self.secret)
    }

    @Test("A rejected/ that links into another coach's folder suspends the linking coach: nothing moves, nothing is taken, status names it")
    func rejectedSymlinkIntoAnotherCoach() async throws {
        let harness = try await DropFolderHarness(students: [("S1002", .week(8)), ("S1004", .week(8))])
        defer { harness.remove() }
        let c01 = try harness.coachFolder("C01"), c02 = try harness.coachFolder("C02"), c03 = try harness.coachFolder("C03")
        try FileManager.default.createSymbolicLink(atPath: c02 + "/rejected", withDestinationPath: "../C01")
        try FileManager.default.createSymbolicLink(atPath: c03 + "/processed", withDestinationPath: "../../artifacts")
        let artifacts = harness.daemon.runtime.stateDirectory.artifacts.path
        #expect(walk(c01).keys.sorted() == [""])

        try await harness.running {
            // A reply C01 would pair (S1002 is C02's student: as C01 it would pass), and a bad name.
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c02 + "/S1002_w08.opus")
            try "not audio".write(toFile: c02 + "/garbage.opus", atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c03 + "/S1004_w08.opus")
            // C01's folder as the witness that the rest keeps working (S1009 is not C01's: rejected).
            let witness = c01
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: witness + "/S1009_w08.opus")
            #expect(await harness.daemon.eventually { harness.contents(witness + "/rejected").contains("S1009_w08.opus") })
        }
        #expect(try harness.feedbackCount() == 0)
        #expect(harness.contents(c02).sorted() == ["S1002_w08.opus", "garbage.opus", "rejected"])
        #expect(harness.contents(c03).sorted() == ["S1004_w08.opus", "processed"])
        #expect(walk(c01).keys.sorted() == ["", "rejected", "rejected/S1009_w08.opus", "rejected/S1009_w08.opus.reason.txt"],
                "nothing of C02's landed in C01")
        #expect(walk(artifacts).keys.allSatisfy { !$0.contains("S1004") && !$0.contains("S1002_w08") && !$0.contains("garbage") })

        let report = await StatusReporter(configuration: harness.daemon.runtime.configuration)
            .report(now: harness.daemon.clock.now, database: harness.daemon.runtime.database, startedAt: harness.daemon.clock.now)
        #expect(report.dropbox.suspended.map(\.folder) == ["C02/rejected", "C03/processed"])
        let check = try #require(report.check("dropbox_rejections"))
        #expect(check.state == .critical)
        #expect(check.message.contains("C02/rejected") && check.message.contains("C03/processed"))
    }

    @Test("A coach folder that is a symbolic link out of the dropbox is never followed: its file stays, nothing is written there")
    func coachFolderSymlink() async throws {
        let harness = try await DropFolderHarness(students: [("S1001", .week(8)), ("S1004", .week(8))])
        defer { harness.remove() }
        let elsewhere = harness.daemon.scratch.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: elsewhere + "/S1004_w08.opus")
        let before = walk(elsewhere)
        let c01 = try harness.coachFolder("C01")
        try FileManager.default.createSymbolicLink(atPath: harness.dropbox + "/C03", withDestinationPath: elsewhere)

        try await harness.running {
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c01 + "/S1001_w08.opus")
            #expect(await harness.daemon.eventually { harness.contents(c01 + "/processed").contains("S1001_w08.opus") })
        }
        #expect(walk(elsewhere) == before)
        #expect(try harness.feedbackCount() == 1)
        let census = DropFolderCensus(path: harness.dropbox)
        #expect(census.suspended.map(\.folder) == ["C03"])
        #expect(census.backlog == 0, "a linked folder's files are not counted as waiting")
    }

    @Test("A hard link, a FIFO, a symlinked reply, a folder, a name that is not UTF-8 and one with a newline each go to rejected/ with a one-line reason, counted once")
    func oddEntries() async throws {
        let harness = try await DropFolderHarness(students: [("S1001", .week(8)), ("S1003", .week(8)), ("S1005", .week(8)), ("S1002", .week(8))])
        defer { harness.remove() }
        let c01 = try harness.coachFolder("C01"), c02 = try harness.coachFolder("C02")
        let original = harness.daemon.scratch.path("original.opus")
        try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: original)
        let before = walk(original)

        try await harness.running {
            #expect(link(original, c01 + "/S1001_w08.opus") == 0)
            #expect(mkfifo(c01 + "/S1003_w08.opus", 0o644) == 0)
            try FileManager.default.createSymbolicLink(atPath: c01 + "/S1005_w08.opus", withDestinationPath: original)
            try FileManager.default.createDirectory(atPath: c01 + "/S1001_w09.opus", withIntermediateDirectories: false)
            let raw = Array(c01.utf8) + Array("/S1001_w08_".utf8) + [0xFF, 0xFE] + Array(".opus".utf8) + [0]
            let fd = raw.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: raw.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
            }
            #expect(fd >= 0)
            close(fd)
            // A name with a newline (valid UTF-8, not a valid reply name).
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c01 + "/S1001_w08\n_x.opus")
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: c02 + "/S1002_w08.opus")
            #expect(await harness.daemon.eventually {
                harness.contents(c01 + "/rejected").filter { !$0.hasSuffix(".reason.txt") }.count == 6
                    && harness.contents(c02 + "/processed").contains("S1002_w08.opus")
            })
        }
        #expect(try harness.feedbackCount() == 1, "only C02's plain reply")
        #expect(harness.reason("C01", "S1001_w08.opus")?.contains("hard link") == true)
        #expect(harness.reason("C01", "S1003_w08.opus")?.contains("not a regular file") == true)
        #expect(harness.reason("C01", "S1005_w08.opus")?.contains("symbolic link") == true)
        #expect(harness.reason("C01", "S1001_w09.opus")?.contains("folder") == true)
        let standIn = try #require(harness.contents(c01 + "/rejected").first { $0.hasPrefix("invalid-name-") && !$0.hasSuffix(".reason.txt") })
        #expect(harness.reason("C01", standIn)?.contains("UTF-8") == true)
        let newline = try #require(harness.reason("C01", "S1001_w08\n_x.opus"))
        #expect(newline.split(separator: "\n").count == 1, "one line: \(newline)")
        #expect(walk(original).values.first == before.values.first, "the hard link's other name is untouched")
        let rejections = try await harness.daemon.runtime.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dropFile WHERE outcome = 'rejected' AND coachId = 'C01'")
        }
        #expect(rejections == 6)
        let report = await StatusReporter(configuration: harness.daemon.runtime.configuration)
            .report(now: harness.daemon.clock.now, database: harness.daemon.runtime.database, startedAt: harness.daemon.clock.now)
        #expect(report.dropbox.rejectedLast24h == 6)
        #expect(report.dropbox.rejected == 6)
    }

    @Test("A reply over dropbox.max_reply_bytes is rejected before it is read")
    func oversizedReply() async throws {
        let harness = try await DropFolderHarness()
        defer { harness.remove() }
        let c01 = try harness.coachFolder("C01")
        try await harness.running {
            let handle = try #require(FileHandle(forWritingAtPath: { FileManager.default.createFile(atPath: c01 + "/S1001_w08.wav", contents: nil); return c01 + "/S1001_w08.wav" }()))
            try handle.truncate(atOffset: UInt64(harness.daemon.runtime.configuration.dropbox.maxReplyBytes) + 1)
            try handle.close()
            #expect(await harness.daemon.eventually { harness.reason("C01", "S1001_w08.wav") != nil })
        }
        #expect(harness.reason("C01", "S1001_w08.wav")?.contains("at most 209.7 MB") == true)
        #expect(try harness.feedbackCount() == 0)
    }

    @Test("Reason files planted in rejected/ (a symlink out, a hard link, a FIFO, a folder) are removed as entries or sidestepped, never followed, opened or written through")
    func plantedReasonFiles() async throws {
        let harness = try await DropFolderHarness()
        defer { harness.remove() }
        let folder = try harness.coachFolder("C02")
        let rejected = folder + "/rejected"
        try FileManager.default.createDirectory(atPath: rejected, withIntermediateDirectories: true)
        let outside = harness.daemon.scratch.path("outside.txt")
        let linked = harness.daemon.scratch.path("linked.txt")
        try "outside\n".write(toFile: outside, atomically: false, encoding: .utf8)
        try "linked\n".write(toFile: linked, atomically: false, encoding: .utf8)
        #expect(symlink(outside, rejected + "/S1001_w01.opus.reason.txt") == 0)
        #expect(link(linked, rejected + "/S1001_w02.opus.reason.txt") == 0)
        #expect(mkfifo(rejected + "/S1001_w03.opus.reason.txt", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: rejected + "/S1001_w04.opus.reason.txt", withIntermediateDirectories: false)
        let outsideBefore = walk(harness.daemon.scratch.path)

        try await harness.running {
            for week in 1...4 {
                try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/S1001_w0\(week).opus")
            }
            #expect(await harness.daemon.eventually { harness.contents(folder).filter { $0.hasSuffix(".opus") }.isEmpty })
        }
        // The symlink, hard link and FIFO were the processor's names with no file beside them:
        // each entry went and a real reason took its place; the folder could not, so the file
        // took the next name.
        for week in 1...3 {
            let reasonPath = rejected + "/S1001_w0\(week).opus.reason.txt"
            var info = stat()
            #expect(lstat(reasonPath, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1, "week \(week)")
            #expect(harness.reason("C02", "S1001_w0\(week).opus")?.contains("for week \(week) yet") == true)
        }
        #expect(harness.contents(rejected).contains("S1001_w04-2.opus"))
        #expect(harness.reason("C02", "S1001_w04-2.opus")?.contains("for week 4 yet") == true)
        var folderInfo = stat()
        #expect(lstat(rejected + "/S1001_w04.opus.reason.txt", &folderInfo) == 0 && folderInfo.st_mode & S_IFMT == S_IFDIR)
        // Nothing outside was read or written through a link.
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "outside\n")
        #expect(try String(contentsOfFile: linked, encoding: .utf8) == "linked\n")
        #expect(walk(harness.daemon.scratch.path).filter { $0.key == "outside.txt" || $0.key == "linked.txt" }
                == outsideBefore.filter { $0.key == "outside.txt" || $0.key == "linked.txt" })
    }
}
