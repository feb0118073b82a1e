import Foundation
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaCore
import TilawaTestSupport

/// The desk in a real browser: Debian's headless Chromium, driven by Selenium from the test
/// virtual environment (`Tests/browser/desk_flow.py`), against a live daemon. Screenshots of
/// each screen at 1280×800 and 390×844 are left in `.build/desk-screenshots/` to look at.
@Suite("The coach's desk in Chromium (Selenium, headless)")
struct DeskBrowserTests {
    static let shots = packageRoot.appendingPathComponent(".build/desk-screenshots").path
    static let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
    /// What Chromium's fake microphone hears when the coach records: 11 s of speech, looped.
    static let microphone = Fixtures.directory.appendingPathComponent("speech_mono_s16_48k.wav").path

    static func script(_ name: String) -> String { packageRoot.appendingPathComponent("Tests/browser/\(name)").path }

    /// A login link for `coach` on the live port (the configured origin has port 0 in tests).
    static func link(_ daemon: TestDaemon, _ coach: String, base: String) async throws -> String {
        let issued = try #require(try await LoginLinks(runtime: daemon.runtime).issue(coachId: coach, now: daemon.clock.now))
        return base + "/desk/login?token=" + String(try #require(issued.url.split(separator: "=").last))
    }

    @Test("sign in by the link's button with the keyboard, the queue lists the coach's student, the oldest recording's review by keyboard (play, seek, 0.75×, ayahs in Arabic), a used link is refused, sign-out ends the session, another coach sees none of it; then an aligned recording: loop ayah 2, mark it, record a 5-s reply, send — the student's timeline shows that reply on that week with the mark; the queue row's times in the coach's zone, the sentences while the queue or a recording loads, and Send and next opening the queue's next recording")
    func deskFlows() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        // Week 11 of S1001's level recites Al-Fatiha here, so its recording is aligned ayah by ayah.
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '1:1-7', title = 'Al-Fatiha', passage = 'Al-Fatiha 1:1-7' WHERE levelId = 'L1' AND week = 11")
        }
        try await daemon.application().live { client in
            let port = client.port
            // Judged before they are answered: over the suite's own connections, without the live
            // client's 20-s read limit (a loaded box judges a recording slower than that).
            let upload = try await daemon.request(port: port, method: .post, "/v1/students/S1001/weeks/12/submissions",
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: Data(buffer: try TestDaemon.fixture("speech.opus")))
            #expect(upload.status == .created)
            let oldest = try #require(upload.json?["id"] as? String)
            // A newer recording beside it (week 11, a minute later): the review flow opens the oldest.
            daemon.clock.advance(by: 60)
            let newer = try await daemon.request(port: port, method: .post, "/v1/students/S1001/weeks/11/submissions",
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/wav"]),
                                                 body: Data(buffer: try TestDaemon.fixture("recitation_fatiha_16k.wav")))
            #expect(newer.status == .created)
            let newerId = try #require(newer.json?["id"] as? String)
            // Another of C01's students (S1005) a minute later: in the queue after both, before what the
            // reply flow's student sends (a minute later still), so "Send and next" on it opens that.
            daemon.clock.advance(by: 60)
            let waiting = try await daemon.request(port: port, method: .post, "/v1/students/S1005/weeks/12/submissions",
                                                   headers: try await daemon.headers(.student, "S1005", [.contentType: "audio/ogg"]),
                                                   body: Data(buffer: try TestDaemon.fixture("speech.opus")))
            #expect(waiting.status == .created)
            let waitingId = try #require(waiting.json?["id"] as? String)
            daemon.clock.advance(by: 60)
            // The review plays the encoded audio and draws its stored peaks: both are encoded first.
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: oldest)?.state == .awaitingFeedback })
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: newerId)?.state == .awaitingFeedback })
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: waitingId)?.state == .awaitingFeedback })
            let base = "http://127.0.0.1:\(port)"
            let result = try await runProcess(Self.python, [Self.script("desk_flow.py"), base, try await Self.link(daemon, "C01", base: base),
                                                            try await Self.link(daemon, "C02", base: base), Self.shots, oldest], timeout: 600)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")

            let reply = try await runProcess(Self.python, [
                Self.script("desk_reply_flow.py"), base, try await Self.link(daemon, "C01", base: base), try await Self.link(daemon, "C02", base: base),
                Self.shots, newerId, oldest, Self.microphone, try await daemon.token(.student, "S1003"), waitingId,
            ], timeout: 600)
            #expect(reply.status == 0, "\(reply.stdout)\n\(reply.stderr)")

            // The student's timeline: week 11's recording carries the mark, and the reply is there once encoded.
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: newerId)?.state == .feedbackReady })
            // A fresh connection: the test client's own was idle while the browser worked, and the server may have closed it.
            let timeline = try await daemon.request(port: port, method: .get, "/v1/students/S1001/timeline", headers: try await daemon.headers(.student, "S1001"))
            let week = try #require((timeline.json?["weeks"] as? [[String: Any]])?.first { $0["number"] as? Int == 11 })
            let submission = try #require((week["submissions"] as? [[String: Any]])?.first { $0["id"] as? String == newerId })
            let marks = try #require(submission["annotations"] as? [[String: Any]])
            #expect(marks.count == 1 && marks.first?["kind"] as? String == "tajweed" && marks.first?["ayah"] as? Int == 2)
            let feedback = week["feedback"] as? [String: Any] ?? (week["feedback"] as? [[String: Any]])?.first
            #expect(feedback?["submission_id"] as? String == newerId, "\(String(describing: week["feedback"]))")
            #expect(feedback?["notes"] as? String == "Good recitation; mind the madd in 1:2.")
            // The send whose answer was lost and the send again stored one reply.
            let stored = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback WHERE submissionId = ?", arguments: [newerId])
            }
            #expect(stored == 1)
            let week12 = try #require((timeline.json?["weeks"] as? [[String: Any]])?.first { $0["number"] as? Int == 12 })
            #expect(week12["feedback"] == nil || week12["feedback"] is NSNull || (week12["feedback"] as? [Any])?.isEmpty == true,
                    "the reply landed on another week")
        }
    }

    @Test("marks move (dragged on the waveform, ±0.1 s by button and key), change and come back after a delete; a recording of another passage is given no ayah markers; without an Arabic font on the machine the desk's own draws every ayah, and an isti'adha and basmala recited before a surah are named apart, the basmala shown once; nothing of a coach's reply is lost: a take and notes are kept as the recording's draft when leaving, listed in the queue, back when opened again and after a reload; after the session ends Send keeps the draft, and once signed in again in another tab it sends without a reload; a send whose answer was lost, then a reload, stores one reply with its notes")
    func marksAndDrafts() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        // Week 11 recites Al-Fatiha, week 12 Al-Ikhlas: their reviews show the passages ayah by ayah (the font's flow reads them).
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '1:1-7', title = 'Al-Fatiha', passage = 'Al-Fatiha 1:1-7' WHERE levelId = 'L1' AND week = 11")
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '112:1-4', title = 'Al-Ikhlas', passage = 'Al-Ikhlas 112:1-4' WHERE levelId = 'L1' AND week = 12")
        }
        try await daemon.application().live { client in
            let port = client.port
            var ids: [String] = []
            for (week, fixture, type) in [(12, "speech.opus", "audio/ogg"), (11, "recitation_fatiha_16k.wav", "audio/wav")] {
                let upload = try await daemon.request(port: port, method: .post, "/v1/students/S1001/weeks/\(week)/submissions",
                                                      headers: try await daemon.headers(.student, "S1001", [.contentType: type]),
                                                      body: Data(buffer: try TestDaemon.fixture(fixture)))
                #expect(upload.status == .created)
                ids.append(try #require(upload.json?["id"] as? String))
                daemon.clock.advance(by: 60)
            }
            // S1003 (C01's too) records week 12 twice: the later review links to the earlier. The later
            // recites Al-Fatiha for L2's week 12 (Al-Fajr 89:1-14): a wrong passage, given no markers.
            var week12: [String] = []
            for (fixture, type) in [("speech.opus", "audio/ogg"), ("recitation_fatiha_16k.wav", "audio/wav")] {
                let upload = try await daemon.request(port: port, method: .post, "/v1/students/S1003/weeks/12/submissions",
                                                      headers: try await daemon.headers(.student, "S1003", [.contentType: type]),
                                                      body: Data(buffer: try TestDaemon.fixture(fixture)))
                #expect(upload.status == .created)
                week12.append(try #require(upload.json?["id"] as? String))
                daemon.clock.advance(by: 60)
            }
            // The later recording of a week supersedes the earlier one (which the review still links to).
            for id in ids + week12 {
                let expected: SubmissionState = id == week12[0] ? .superseded : .awaitingFeedback
                let ready = await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == expected }
                let state = try await daemon.runtime.database.submission(id: id)?.state
                #expect(ready, "\(id): \(String(describing: state))")
            }
            // Week 12's recording recited the isti'adha and the basmala before 112:1, and ran 112:3
            // into 112:2 (its markers say so, as the aligner writes them; the 11-s clip is not a
            // recitation to align).
            let openings = ids[0]
            try await daemon.runtime.database.engine.write { db in
                var row = try #require(try SubmissionRecord.fetchOne(db, key: openings))
                row.ayahMarkers = AyahMarkers(ayahs: "112:1-4", markers: [
                    .init(surah: 112, ayah: 0, preface: .istiadha, startSeconds: 0, endSeconds: 2),
                    .init(surah: 112, ayah: 0, preface: .basmala, startSeconds: 2.3, endSeconds: 4.5),
                    .init(surah: 112, ayah: 1, startSeconds: 4.8, endSeconds: 6.5), .init(surah: 112, ayah: 2, startSeconds: 6.8, endSeconds: 9.5),
                    .init(surah: 112, ayah: 4, startSeconds: 9.7, endSeconds: 10.8),
                ], notFound: [.init(surah: 112, ayah: 3)])
                try row.update(db)
            }
            let base = "http://127.0.0.1:\(port)"
            // Marks first (while no reply is out): moved, edited, deleted and brought back.
            let marks = try await runProcess(Self.python, [
                Self.script("desk_marks_flow.py"), base, try await Self.link(daemon, "C01", base: base), Self.shots, ids[1], week12[1], week12[0],
            ], timeout: 600)
            #expect(marks.status == 0, "\(marks.stdout)\n\(marks.stderr)")
            // A laptop without an Arabic Quran font: the desk's own draws every ayah.
            let font = try await runProcess(Self.python, [
                Self.script("desk_font_flow.py"), base, try await Self.link(daemon, "C01", base: base), Self.shots, ids[1], ids[0],
            ], timeout: 600)
            #expect(font.status == 0, "\(font.stdout)\n\(font.stderr)")
            let result = try await runProcess(Self.python, [
                Self.script("desk_draft_flow.py"), base, try await Self.link(daemon, "C01", base: base), try await Self.link(daemon, "C01", base: base),
                Self.shots, ids[0], ids[1], Self.microphone,
            ], timeout: 600)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            // Each recording has exactly one reply, whatever the sends lost or repeated on the way.
            for id in ids {
                let stored = try await daemon.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback WHERE submissionId = ?", arguments: [id])
                }
                #expect(stored == 1, "\(id)")
            }
        }
    }

    @Test("an answer being typed to a student's question (Arabic, read right to left in the queue and the thread) is kept as the recording's draft: back to the queue and opened again from the question, and after a reload, it is in the answer field; sent, it is in the thread, the question is answered and the draft is gone")
    func answerDraft() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let upload = try await daemon.request(port: port, method: .post, "/v1/students/S1001/weeks/12/submissions",
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: Data(buffer: try TestDaemon.fixture("speech.opus")))
            #expect(upload.status == .created)
            let id = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            // The coach's reply, encoded: only then may the student ask about it.
            let reply = try await daemon.request(port: port, method: .post, "/v1/submissions/\(id)/feedback",
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: Data(buffer: try TestDaemon.fixture("speech.opus")))
            #expect(reply.status == .created)
            let feedbackId = try #require(reply.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.feedback(id: feedbackId)?.state == .ready })
            // The student's question: Arabic with Latin punctuation and a number.
            let asked = try await daemon.request(port: port, method: .post, "/v1/feedback/\(feedbackId)/comments",
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "application/json"]),
                                                 body: Data(#"{"text": "هل المد في الآية 3 أربع حركات أم ست? (madd)"}"#.utf8))
            #expect(asked.status == .created, "\(String(describing: asked.json))")
            let base = "http://127.0.0.1:\(port)"
            let result = try await runProcess(Self.python, [
                Self.script("desk_answer_flow.py"), base, try await Self.link(daemon, "C01", base: base), Self.shots, id,
            ], timeout: 600)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        }
    }

    @Test("the desk's pure logic passes its specs in Chromium (key mapping in any layout, the alignment display, the queue's order, marks, the reply's draft, the waveform's arithmetic, the recorder's types), loaded from /desk/assets under the desk's own CSP; the runner reports a deliberately failing assertion as failed")
    func deskSpecs() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let base = "http://127.0.0.1:\(client.port)"
            let result = try await runProcess(Self.python, [Self.script("desk_specs.py"), base, Self.shots], timeout: 300)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        }
    }

    @Test("a mark's spoken correction stays when the mark is edited, is recorded again from the edit (new addresses; Remove then Cancel changes nothing), and the new one reaches the student with the reply; an end-of-course reply is refused without a result (by the desk and the route) and stored with pass; a placing coach places an assessment from the desk")
    func endOfCourseAndPlacement() async throws {
        let daemon = try await TestDaemon(at: EndOfCourseRouteTests.week14)
        defer { daemon.remove() }
        try EndOfCourseRouteTests.seedTwelveWeeks(daemon)
        try await daemon.application().live { client in
            let port = client.port
            let eoc = try await daemon.request(port: port, method: .post, "/v1/students/S1001/weeks/eoc/submissions",
                                               headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                               body: Data(buffer: try TestDaemon.fixture("speech.opus")))
            let eocId = try #require(eoc.json?["id"] as? String)
            let assessment = try await daemon.request(port: port, method: .post, "/v1/students/S1011/weeks/assessment/submissions",
                                                      headers: try await daemon.headers(.student, "S1011", [.contentType: "audio/ogg"]),
                                                      body: Data(buffer: try TestDaemon.fixture("speech.opus")))
            let assessmentId = try #require(assessment.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: eocId)?.state == .awaitingFeedback })
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: assessmentId)?.state == .awaitingFeedback })
            let base = "http://127.0.0.1:\(port)"
            let result = try await runProcess(Self.python, [
                Self.script("desk_eoc_flow.py"), base, try await Self.link(daemon, "C01", base: base), Self.shots, eocId, assessmentId, Self.microphone,
                try await daemon.token(.student, "S1001"),
            ], timeout: 600)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            let timeline = try await daemon.request(port: port, method: .get, "/v1/students/S1011/timeline", headers: try await daemon.headers(.student, "S1011"))
            #expect((timeline.json?["level"] as? [String: Any])?["id"] as? String == "L1", "\(String(describing: timeline.json?["level"]))")
            #expect((timeline.json?["coach"] as? [String: Any])?["id"] as? String == "C02", "\(String(describing: timeline.json?["coach"]))")
        }
    }
}
