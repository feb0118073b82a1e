import Foundation
import GRDB
import Testing
import TilawaStore
import TilawaTestSupport

/// Week 12 of fall 2026 (started Saturday 5 September) is open: Sunday 22 November 2026.
private let midSemester = "2026-11-22 15:00:00"

@Suite("tilawa ingest", .heavy)
struct IngestCommandTests {
    @Test("An accepted recording is encoded at once and printed as a submission")
    func accepted() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let result = try await state.run(["ingest", "--student", "S1001", "--week", "12", "--json",
                                    CommandLineStateFixture.fixture("speech.m4a")], at: midSemester)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "awaiting_feedback")
        #expect(object["week"] as? Int == 12)
        #expect(object["kind"] as? String == "week")
        #expect(object["late"] as? Bool == false)
        #expect(object["received_at"] as? String == "2026-11-22T15:00:00Z")
        let attempts = try #require(object["attempts"] as? [String: Any])
        #expect(attempts["used"] as? Int == 1 && attempts["remaining"] as? Int == 1)
        let id = try #require(object["id"] as? String)
        let row = try #require(try state.read { db in try Row.fetchOne(db, sql: "SELECT audioPath, waveformPath FROM submission WHERE id = ?", arguments: [id]) })
        let audio = state.stateDirectory + "/artifacts/" + (row["audioPath"] as String)
        #expect(FileManager.default.fileExists(atPath: audio))
        #expect(try await runProcess("opusinfo", [audio]).status == 0)
        // The user's file is copied, never moved.
        #expect(FileManager.default.fileExists(atPath: CommandLineStateFixture.fixture("speech.m4a")))
    }

    @Test("Exit codes: 65 audio, 75 attempt limit with the opening, 77 rules, 64 usage — each one line, none uses an attempt")
    func refusals() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let speech = CommandLineStateFixture.fixture("speech_mono_s16_48k.wav")
        func ingest(_ student: String, _ week: String, _ file: String = speech, at time: String = midSemester) async throws -> ProcessResult {
            try await state.run(["ingest", "--student", student, "--week", week, file], at: time)
        }
        let silent = try await ingest("S1001", "11", CommandLineStateFixture.fixture("digital_silence.wav"))
        #expect(silent.status == 65 && silent.stderr.hasPrefix("tilawa: silent: "))
        #expect(try await ingest("S1001", "13").status == 77, "week 13 unlocks on 28 November")
        #expect(try await ingest("S9999", "1").status == 77)
        #expect(try await ingest("S1001", "eoc").status == 77)
        #expect(try await ingest("S1001", "16").status == 64)
        #expect(try await ingest("S1001", "abc").status == 64)
        #expect(try await ingest("../etc", "1").status == 64)
        #expect(try await ingest("S1001", "10").status == 0)
        #expect(try await ingest("S1001", "11", at: "2026-11-23 09:30:00").status == 0)
        let limited = try await ingest("S1001", "12", at: "2026-11-24 08:00:00")
        #expect(limited.status == 75)
        // Next attempt: the first accepted (22 Nov 15:00 UTC = 10:00 New York) + 7 days.
        #expect(limited.stderr == "tilawa: attempt_limit: You have used both of your attempts for now; the next one opens on Sunday 29 November, 10:00 EST.\n")
        #expect(try await ingest("S1001", "12", at: "2026-11-29 15:00:00").status == 0)
        let counts = try state.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection") ?? -1)
        }
        #expect(counts.0 == 3)
        #expect(counts.1 == 5, "audio, locked, unknown student, eoc, attempt limit are audited; usage errors are not")
    }

    @Test("The week calendar follows New York time across the unlock instant")
    func unlockInstant() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let speech = CommandLineStateFixture.fixture("speech.opus")
        // Week 1 unlocks Saturday 5 September 2026 00:00 EDT = 04:00 UTC.
        let early = try await state.run(["ingest", "--student", "S1002", "--week", "1", speech], at: "2026-09-05 03:59:59")
        #expect(early.status == 77 && early.stderr.hasPrefix("tilawa: week_locked: "))
        let onTime = try await state.run(["ingest", "--student", "S1002", "--week", "1", speech], at: "2026-09-05 04:00:00")
        #expect(onTime.status == 0, "\(onTime.stderr)")
    }

    @Test("Ten simultaneous ingest processes for one student: exactly two accepted, eight told the same opening")
    func concurrentProcesses() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let speech = CommandLineStateFixture.fixture("speech.opus")
        let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for week in 3...12 {
                group.addTask {
                    try await state.run(["ingest", "--student", "S1003", "--week", "\(week)", "--json", speech], at: midSemester)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0.status == 0 }.count == 2)
        let limited = results.filter { $0.status == 75 }
        #expect(limited.count == 8)
        #expect(!results.contains { $0.stderr.contains("locked") })
        let openings = Set(limited.compactMap { result -> String? in
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["next_attempt_at"] as? String
        })
        #expect(openings.count == 1)
        #expect(try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1003'") } == 2)
    }

    @Test("A process killed between admission and encode loses nothing: the next run finishes the job, counted once")
    func crashAfterAdmission() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let speech = CommandLineStateFixture.fixture("speech.flac")
        let killed = try await state.run(["ingest", "--student", "S1004", "--week", "12", speech], at: midSemester,
                                   environment: ["TILAWA_FAILPOINT": "after_admission"])
        #expect(killed.signaled && killed.status == SIGKILL)
        let pending = try state.read { db in try Row.fetchOne(db, sql: "SELECT s.state, j.state AS job FROM submission s JOIN job j ON j.subjectId = s.id") }
        #expect(pending?["state"] as String? == "processing")
        #expect(pending?["job"] as String? == "queued")

        let resumed = try await state.run(["jobs", "run"], at: midSemester)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let done = try state.read { db in try Row.fetchOne(db, sql: "SELECT s.state, s.audioPath, j.state AS job FROM submission s JOIN job j ON j.subjectId = s.id") }
        #expect(done?["state"] as String? == "awaiting_feedback")
        #expect(done?["job"] as String? == "done")
        let audio = try #require(done?["audioPath"] as String?)
        #expect(FileManager.default.fileExists(atPath: state.stateDirectory + "/artifacts/" + audio))
        // One attempt used, not two.
        let second = try await state.run(["ingest", "--student", "S1004", "--week", "11", "--json", speech], at: midSemester)
        #expect(second.status == 0)
        #expect(second.stdout.contains("\"used\" : 2"))
    }

    @Test("A process killed after encoding but before recording it: the job runs again and the result is whole")
    func crashAfterEncode() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let speech = CommandLineStateFixture.fixture("speech.flac")
        let killed = try await state.run(["ingest", "--student", "S1005", "--week", "12", speech], at: midSemester,
                                   environment: ["TILAWA_FAILPOINT": "after_encode"])
        #expect(killed.signaled)
        let resumed = try await state.run(["jobs", "run"], at: midSemester)
        #expect(resumed.stdout.hasPrefix("requeued 1 abandoned, ran 1 jobs"), "\(resumed.stdout)")
        let row = try state.read { db in try Row.fetchOne(db, sql: "SELECT state, audioPath FROM submission") }
        #expect(row?["state"] as String? == "awaiting_feedback")
    }
}

@Suite("tilawa roster import", .heavy)
struct RosterImportCommandTests {
    @Test("Importing the samples twice changes nothing")
    func idempotent() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let again = try await state.run(["roster", "import", CommandLineStateFixture.sample("program.yaml"), CommandLineStateFixture.sample("students.csv")])
        #expect(again.status == 0)
        let counts = try state.read { db in
            try ["semester", "coach", "level", "curriculumWeek", "student"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? 0 }
        }
        #expect(counts == [2, 3, 4, 60, 12])
    }

    @Test("A bad row anywhere writes nothing of that import", arguments: [
        ("S2001,New Student,L1,C01,fall-2026\nS2002,Bad Coach,L1,C99,fall-2026\n", "unknown_coach", 3),
        ("S2001,New Student,L1,C01,fall-2026\nS2001,Again,L1,C01,fall-2026\n", "duplicate_id", 3),
        ("S2001,\"unterminated,L1,C01,fall-2026\n", "malformed_csv", 2),
    ])
    func badRows(csv: String, code: String, line: Int) async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let file = state.scratch.path("students.csv")
        try ("student_id,name,level,coach_id,semester_id\n" + csv).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await state.run(["roster", "import", CommandLineStateFixture.sample("program.yaml"), file])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("tilawa: \(code): "), "\(result.stderr)")
        #expect(result.stderr.contains("line \(line)"))
        // The programme file in the same import was not written either.
        let semesters = try? state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM semester") }
        #expect(semesters == nil || semesters == 0)
    }

    @Test("A semester that does not start on a Saturday is refused")
    func notSaturday() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let text = try String(contentsOfFile: CommandLineStateFixture.sample("program.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "2026-09-05", with: "2026-09-06")
        let file = state.scratch.path("program.yaml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await state.run(["roster", "import", file])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("tilawa: semester_not_saturday: "))
    }
}
