import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

@Suite("tilawa feedback import", .heavy)
struct FeedbackCommandTests {
    @Test("A reply is paired by its name: 0 paired with notes, 77 unpairable, 65 unusable audio, 64 a name without a week")
    func importCommand() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let time = "2026-11-22 15:00:00"
        #expect(try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")], at: time).status == 0)
        let reply = state.scratch.path("S1001_w12.opus")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: reply)
        try "Well done.".write(toFile: state.scratch.path("S1001_w12.txt"), atomically: true, encoding: .utf8)
        let paired = try await state.run(["feedback", "import", "--coach", "C01", "--json", reply], at: time)
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains("\"notes\" : \"Well done.\""))
        #expect(try state.read { db in try String.fetchOne(db, sql: "SELECT state FROM submission") } == "feedback_ready")

        let wrongCoach = try await state.run(["feedback", "import", "--coach", "C02", reply], at: time)
        #expect(wrongCoach.status == 77 && wrongCoach.stderr.hasPrefix("tilawa: not_assigned_coach: "))
        let otherWeek = state.scratch.path("S1001_w11.opus")
        try FileManager.default.copyItem(atPath: reply, toPath: otherWeek)
        let noSubmission = try await state.run(["feedback", "import", "--coach", "C01", otherWeek], at: time)
        #expect(noSubmission.status == 77 && noSubmission.stderr.contains("No submission from S1001 for week 11 yet"))
        let silent = state.scratch.path("S1001_assessment.wav")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("digital_silence.wav"), toPath: silent)
        #expect(try await state.run(["ingest", "--student", "S1001", "--week", "assessment", CommandLineStateFixture.fixture("speech.opus")], at: time).status == 0)
        #expect(try await state.run(["feedback", "import", "--coach", "C01", silent], at: time).status == 65)
        let unnamed = state.scratch.path("reply.opus")
        try FileManager.default.copyItem(atPath: reply, toPath: unnamed)
        #expect(try await state.run(["feedback", "import", "--coach", "C01", unnamed], at: time).status == 64)
    }

    @Test("tilawa feedback comment: the coach answers in the thread (0), another coach cannot (77), an empty answer is usage (64)")
    func comment() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let time = "2026-11-22 15:00:00"
        #expect(try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")], at: time).status == 0)
        let reply = state.scratch.path("S1001_w12.opus")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: reply)
        #expect(try await state.run(["feedback", "import", "--coach", "C01", reply], at: time).status == 0)
        let feedbackId = try #require(try state.read { db in try String.fetchOne(db, sql: "SELECT id FROM feedback") })
        let answered = try await state.run(["feedback", "comment", "--coach", "C01", "--feedback", feedbackId, "--json", "Six counts."], at: time)
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(answered.stdout.contains("\"author\" : \"coach\"") && answered.stdout.contains("Six counts."))
        let other = try await state.run(["feedback", "comment", "--coach", "C02", "--feedback", feedbackId, "Hello"], at: time)
        #expect(other.status == 77 && other.stderr.hasPrefix("tilawa: not_found: "))
        #expect(try await state.run(["feedback", "comment", "--coach", "C01", "--feedback", feedbackId, "   "], at: time).status == 64)
        #expect(try state.read { db in try String.fetchAll(db, sql: "SELECT type FROM event WHERE type = 'question_answered'") }.count == 1)

        // A voice answer (no text); a silent one is refused for its audio (65) and leaves no file.
        let voice = try await state.run(["feedback", "comment", "--coach", "C01", "--feedback", feedbackId, "--json",
                                         "--audio", CommandLineStateFixture.fixture("speech.flac")], at: time)
        #expect(voice.status == 0, "\(voice.stderr)")
        #expect(voice.stdout.contains("\"text\" : \"\"") && voice.stdout.contains("/audio\""))
        let silent = try await state.run(["feedback", "comment", "--coach", "C01", "--feedback", feedbackId,
                                          "--audio", CommandLineStateFixture.fixture("digital_silence.wav")], at: time)
        #expect(silent.status == 65 && silent.stderr.hasPrefix("tilawa: silent: "))
        let clips = try state.read { db in try String.fetchAll(db, sql: "SELECT audioPath FROM comment WHERE audioPath IS NOT NULL") }
        #expect(clips.count == 1)
        let files = FileManager.default.enumerator(atPath: state.stateDirectory + "/artifacts/comments")?.allObjects as? [String] ?? []
        #expect(files.filter { $0.hasSuffix(".opus") || $0.hasSuffix(".json") }.count == 2)
    }

    @Test("A notes file that is a link (to a secret) is refused unread: 65 invalid_notes, nothing paired")
    func linkedNotes() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let time = "2026-11-22 15:00:00"
        #expect(try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")], at: time).status == 0)
        let secret = state.scratch.path("secret.key")
        try "SECRET-KEY-BYTES".write(toFile: secret, atomically: true, encoding: .utf8)
        let reply = state.scratch.path("S1001_w12.opus")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: reply)
        try FileManager.default.createSymbolicLink(atPath: state.scratch.path("S1001_w12.txt"), withDestinationPath: secret)
        let refused = try await state.run(["feedback", "import", "--coach", "C01", "--json", reply], at: time)
        #expect(refused.status == 65 && refused.stderr.hasPrefix("tilawa: invalid_notes: "), "\(refused.stderr)")
        #expect(!refused.stdout.contains("SECRET") && !refused.stderr.contains("SECRET"))
        #expect(try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback") } == 0)
    }
}
