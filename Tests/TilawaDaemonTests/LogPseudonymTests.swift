import Foundation
import GRDB
import Testing
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

/// How the log names people (`log.ids`, issue 46): a keyed pseudonym under the installation's
/// key, the same from every process that opens the database, another in another installation.
@Suite("Log pseudonyms: keyed by the installation, stable across opens, paths and drop-folder names")
struct LogPseudonymTests {
    /// The pseudonyms of the database at `path`, as a daemon (or `tilawa log-id`) opening it reads them.
    static func pseudonyms(_ path: String, _ mode: LogIdentifiers = .pseudonym) throws -> LogPseudonyms {
        try LogPseudonyms.configured(mode, database: try AppDatabase.open(path: path), now: Date())
    }

    @Test("""
        a student's token is s_ and 12 hex digits, the same twice and from a second open of the database; another student's, \
        a coach of the same id and another installation's differ; clear gives the id and makes no key
        """)
    func stableAndKeyed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let one = try Self.pseudonyms(scratch.path("tilawa.sqlite"))
        let again = try Self.pseudonyms(scratch.path("tilawa.sqlite"))
        let elsewhere = try Self.pseudonyms(scratch.path("elsewhere.sqlite"))

        let token = one.student("S1001")
        #expect(token.wholeMatch(of: try Regex(#"s_[0-9a-f]{12}"#)) != nil, "\(token)")
        #expect(one.student("S1001") == token && again.student("S1001") == token)
        #expect(one.student("S1002") != token)
        #expect(elsewhere.student("S1001") != token, "another installation, another key")
        #expect(one.coach("S1001").hasPrefix("c_") && one.coach("S1001").dropFirst(2) != token.dropFirst(2))
        #expect(one.subject("auth0|61f0").hasPrefix("u_") && one.person("S1001").hasPrefix("p_"))
        #expect(!one.isClear)

        let clearPath = scratch.path("clear.sqlite")
        let clear = try Self.pseudonyms(clearPath, .clear)
        #expect(clear.isClear)
        #expect(clear.student("S1001") == "S1001" && clear.coach("C01") == "C01" && clear.subject("auth0|61f0") == "auth0|61f0")
        let keys = try AppDatabase.open(path: clearPath).engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM meta WHERE key = 'log_pseudonym_key'")
        }
        #expect(keys == 0, "log.ids: clear never makes a key")
    }

    @Test("principals, queues and paths: the person's part pseudonymised, an operator and the rest as they are, the query left off")
    func principalsAndPaths() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let names = try Self.pseudonyms(scratch.path("tilawa.sqlite"))
        let student = names.student("S1001"), coach = names.coach("C01")
        #expect(names.principal(try #require(Principal(subject: "S1001", role: .student))) == "student:\(student)")
        #expect(names.principal(try #require(Principal(subject: "C01", role: .coach))) == "coach:\(coach)")
        #expect(names.principal(try #require(Principal(subject: "amina", role: .ops))) == "ops:amina")
        #expect(names.tagged("student:S1001") == "student:\(student)" && names.tagged("coach:C01") == "coach:\(coach)")
        #expect(names.tagged("ops") == "ops")

        #expect(names.path("/v1/students/S1001/weeks/3/submissions") == "/v1/students/\(student)/weeks/3/submissions")
        #expect(names.path("/v1/coaches/C01/queue") == "/v1/coaches/\(coach)/queue")
        #expect(names.path("/v1/audit?student=S1001") == "/v1/audit")
        #expect(names.path("/scim/v2/Users/S1001") == "/scim/v2/Users/\(names.person("S1001"))")
        #expect(names.path("/scim/v2/Users/.search") == "/scim/v2/Users/.search")
        #expect(names.path("/v1/submissions/sub_1/audio") == "/v1/submissions/sub_1/audio")
        #expect(names.path("/v1/students/") == "/v1/students/")
        #expect(LogPseudonyms.clear.path("/v1/students/S1001/timeline?x=1") == "/v1/students/S1001/timeline?x=1")
    }

    @Test("""
        a drop-folder file: the coach and the student its name starts with as theirs; a name that is no reply's keeps only its \
        extension; a reason quoting them is scrubbed, whole words only
        """)
    func dropFolderNames() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let names = try Self.pseudonyms(scratch.path("tilawa.sqlite"))
        let coach = names.coach("C01"), student = names.student("S1042")
        #expect(names.dropFile(coach: "C01", name: EntryName("S1042_w08_take2.m4a")) == "\(coach)/\(student)_w08_take2.m4a")
        #expect(names.dropFile(coach: "C01", name: EntryName("S1042_w99.m4a")) == "\(coach)/\(student)_w99.m4a", "a week past the semester's")
        #expect(names.dropFile(coach: "C01", name: EntryName("Aisha Rahman week 8.m4a")) == "\(coach)/….m4a")
        #expect(names.dropFile(coach: "C01", name: EntryName(bytes: [0x53, 0xFF, 0x2E, 0x6D])) == "\(coach)/…")
        #expect(LogPseudonyms.clear.dropFile(coach: "C01", name: EntryName("S1042_w08.m4a")) == "C01/S1042_w08.m4a")
        // A hostile coach's names: a path, a newline, a name that is all id. None shows the id
        // or a path; the log handler escapes what is left, so a line stays one line.
        #expect(names.dropFile(coach: "C01", name: EntryName("../../etc/passwd")) == "\(coach)/…")
        #expect(!names.dropFile(coach: "C01", name: EntryName("S1042_w08\nlevel=error.m4a")).contains("S1042"))
        #expect(!names.dropFile(coach: "C01", name: EntryName("S1042")).contains("S1042"))

        let reason = "The file name S1042_w08.m4a does not say which week; S1042 is in folder C01."
        #expect(names.scrub(reason, coach: "C01", name: EntryName("S1042_w08.m4a"))
            == "The file name \(student)_w08.m4a does not say which week; \(student) is in folder \(coach).")
        let unread = "The file name Aisha Rahman week 8.m4a does not start with a valid student id."
        #expect(names.scrub(unread, coach: "C01", name: EntryName("Aisha Rahman week 8.m4a"))
            == "The file name ….m4a does not start with a valid student id.")
        // A folder named `a` takes the word `a`, not every letter a.
        #expect(LogPseudonyms.replacing([("a", "c_x")], in: "a folder named a, not a banana") == "c_x folder named c_x, not c_x banana")
        #expect(LogPseudonyms.coachFolder(of: "C02/rejected") == "C02" && LogPseudonyms.coachFolder(of: "C02") == "C02")
    }
}
