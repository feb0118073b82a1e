import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Annotations: a coach's marks on a recording")
struct AnnotationRouteTests {
    /// S1001's week-12 recording (coach C01), encoded.
    private func recording(_ daemon: TestDaemon, _ client: LiveClient, student: String = "S1001") async throws -> String {
        let upload = try await client.execute(uri: "/v1/students/\(student)/weeks/12/submissions", method: .post,
                                              headers: try await daemon.headers(.student, student, [.contentType: "audio/ogg"]),
                                              body: try TestDaemon.fixture("speech.opus"))
        let id = try #require(upload.json?["id"] as? String)
        #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
        return id
    }

    private func annotate(_ daemon: TestDaemon, _ client: LiveClient, _ submission: String, _ body: String,
                          as role: Role = .coach, _ subject: String = "C01") async throws -> LiveAnswer {
        try await client.execute(uri: "/v1/submissions/\(submission)/annotations", method: .post,
                                 headers: try await daemon.headers(role, subject, [.contentType: "application/json"]),
                                 body: ByteBuffer(string: body))
    }

    /// Files under `artifacts/annotations/`.
    private func correctionFiles(_ daemon: TestDaemon) -> [String] {
        let root = daemon.runtime.stateDirectory.artifactStore.path("annotations")
        return (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("/") && ($0.hasSuffix(".opus") || $0.hasSuffix(".json")) }
    }

    private func annotationRows(_ daemon: TestDaemon) throws -> Int {
        try daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM annotation") ?? -1 }
    }

    @Test("the coach marks moments; the student sees them once the reply is out, then each new one sends annotation_added; the history, the correction's audio, deleting")
    func annotateThroughTheReply() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let first = try await annotate(daemon, client, id, #"{"at_seconds": 2.5, "surah": 104, "ayah": 3, "kind": "tajweed", "text": "  The madd here is six counts.  "}"#)
            #expect(first.status == .created, "\(String(buffer: first.body))")
            #expect(first.json?["kind"] as? String == "tajweed" && first.json?["surah"] as? Int == 104 && first.json?["ayah"] as? Int == 3)
            #expect(first.json?["text"] as? String == "The madd here is six counts." && first.json?["audio"] is NSNull)
            #expect(first.json?["coach_id"] as? String == "C01" && first.json?["student_id"] as? String == "S1001")
            let moment = try await annotate(daemon, client, id, #"{"at_seconds": 7, "kind": "fluency", "text": "Steadier here."}"#)
            #expect(moment.status == .created && moment.json?["surah"] is NSNull && moment.json?["ayah"] is NSNull)

            // Before the reply: the coach's draft. The coach sees it, the student does not, no event.
            let student = try await daemon.headers(.student, "S1001")
            let coach = try await daemon.headers(.coach, "C01")
            let coachView = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: coach)
            #expect((coachView.json?["annotations"] as? [[String: Any]])?.map { $0["at_seconds"] as? Double } == [2.5, 7])
            let early = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: student)
            #expect((early.json?["annotations"] as? [Any])?.isEmpty == true)
            let earlyHistory = try await client.execute(uri: "/v1/students/S1001/annotations", method: .get, headers: student)
            #expect((earlyHistory.json?["annotations"] as? [Any])?.isEmpty == true)

            // The reply goes out: the marks ride with it.
            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            let feedbackId = try #require(reply.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .feedbackReady })
            let shown = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: student)
            #expect((shown.json?["annotations"] as? [Any])?.count == 2)
            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: student)
            let week12 = try #require((timeline.json?["weeks"] as? [[String: Any]])?[11])
            let marks = try #require(((week12["submissions"] as? [[String: Any]])?.first)?["annotations"] as? [[String: Any]])
            #expect(marks.map { $0["kind"] as? String } == ["tajweed", "fluency"])
            func announced() async throws -> [[String: Any]] {
                let feed = try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: student)
                return (feed.json?["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "annotation_added" }
            }
            #expect(try await announced().isEmpty)

            // After the reply: a spoken correction, announced to the student with a link to the reply.
            let spoken = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=4.25&surah=104&ayah=3&kind=harakah",
                                                  method: .post, headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(spoken.status == .created, "\(String(buffer: spoken.body))")
            let spokenId = try #require(spoken.json?["id"] as? String)
            let clip = try #require(spoken.json?["audio"] as? [String: Any])
            #expect(abs((clip["duration_seconds"] as? Double ?? 0) - 11) < 1 && spoken.json?["text"] as? String == "")
            let events = try await announced()
            #expect(events.count == 1)
            #expect(events.first?["link"] as? String == "quranflow://weeks/12/feedback/\(feedbackId)")
            #expect((events.first?["message"] as? String)?.contains("ayah 104:3") == true, "\(events)")
            let audio = try await client.execute(uri: "/v1/annotations/\(spokenId)/audio", method: .get, headers: student)
            #expect(audio.status == .ok && audio.body.getString(at: 0, length: 4) == "OggS")
            let peaks = try await client.execute(uri: "/v1/annotations/\(spokenId)/waveform", method: .get, headers: student)
            #expect(peaks.status == .ok && peaks.json?["version"] as? Int == 2)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)/audio", method: .get,
                                             headers: try await daemon.headers(.student, "S1002")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)/audio", method: .get,
                                             headers: try await daemon.headers(.coach, "C02")).status == .notFound)

            // The history of one ayah, newest first; others' students are not there.
            let ayah = try await client.execute(uri: "/v1/students/S1001/annotations?surah=104&ayah=3", method: .get, headers: coach)
            #expect((ayah.json?["annotations"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["harakah", "tajweed"])
            let all = try await client.execute(uri: "/v1/students/S1001/annotations", method: .get, headers: student)
            #expect((all.json?["annotations"] as? [Any])?.count == 3)
            #expect(try await client.execute(uri: "/v1/students/S1001/annotations", method: .get,
                                             headers: try await daemon.headers(.coach, "C02")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/students/S1001/annotations", method: .get,
                                             headers: try await daemon.headers(.student, "S1002")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/students/S1001/annotations?ayah=3", method: .get, headers: coach).status == .badRequest)

            // Deleting: only its author; the correction's files go with it.
            #expect(correctionFiles(daemon).count == 2)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)", method: .delete,
                                             headers: try await daemon.headers(.coach, "C02")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)", method: .delete, headers: student).status == .forbidden)
            #expect(correctionFiles(daemon).count == 2)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)", method: .delete, headers: coach).status == .noContent)
            #expect(correctionFiles(daemon).isEmpty)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)/audio", method: .get, headers: coach).status == .notFound)
            #expect(try await client.execute(uri: "/v1/annotations/\(spokenId)", method: .delete, headers: coach).status == .notFound)
            #expect(try annotationRows(daemon) == 2)
        }
    }

    @Test("a mark moves and changes (PATCH: its moment, ayah, kind, note) under a new mark's rules; only its author may, and not once the student has moved to another coach; a refused change writes nothing")
    func moveAndEdit() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let created = try await annotate(daemon, client, id, #"{"at_seconds": 2.5, "surah": 104, "ayah": 3, "kind": "tajweed", "text": "The madd."}"#)
            let mark = try #require(created.json?["id"] as? String)
            func patch(_ body: String, as role: Role = .coach, _ subject: String = "C01", type: String = "application/json") async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/annotations/\(mark)", method: .patch,
                                         headers: try await daemon.headers(role, subject, [.contentType: type]), body: ByteBuffer(string: body))
            }
            func stored() throws -> AnnotationRecord? { try daemon.runtime.database.engine.read { db in try AnnotationRecord.fetchOne(db, key: mark) } }

            // Moved by 0.1 s and its kind changed: the rest stays.
            let moved = try await patch(#"{"at_seconds": 2.6, "kind": "harakah"}"#)
            #expect(moved.status == .ok, "\(String(buffer: moved.body))")
            #expect(moved.json?["at_seconds"] as? Double == 2.6 && moved.json?["kind"] as? String == "harakah")
            #expect(moved.json?["surah"] as? Int == 104 && moved.json?["ayah"] as? Int == 3 && moved.json?["text"] as? String == "The madd.")
            // The moment alone (both null), then another ayah and a new note, trimmed.
            let moment = try await patch(#"{"surah": null, "ayah": null}"#)
            #expect(moment.status == .ok && moment.json?["surah"] is NSNull && moment.json?["ayah"] is NSNull)
            let edited = try await patch(#"{"surah": 104, "ayah": 2, "text": "  Wrong word: the second one.  "}"#)
            #expect(edited.json?["ayah"] as? Int == 2 && edited.json?["text"] as? String == "Wrong word: the second one.")
            let before = try stored()

            // Refused, each with its code; nothing written.
            let refusals: [(String, HTTPResponse.Status, String)] = [
                (#"{"surah": 104}"#, .unprocessableContent, "surah_and_ayah_together"),
                (#"{"surah": 104, "ayah": null}"#, .unprocessableContent, "surah_and_ayah_together"),
                (#"{"surah": 104, "ayah": 99}"#, .unprocessableContent, "unknown_ayah"),
                (#"{"at_seconds": 9999}"#, .unprocessableContent, "at_seconds_out_of_range"),
                (#"{"at_seconds": -1}"#, .unprocessableContent, "at_seconds_out_of_range"),
                (#"{"kind": "accent"}"#, .unprocessableContent, "invalid_kind"),
                (#"{"text": "   "}"#, .unprocessableContent, "text_missing"),
                (#"{"at_seconds": true}"#, .badRequest, "invalid_body"),
                (#"{"at_seconds": "2"}"#, .badRequest, "invalid_body"),
                (#"{"colour": "red"}"#, .badRequest, "invalid_body"),
                (#"{}"#, .badRequest, "invalid_body"),
                ("not json", .badRequest, "invalid_body"),
            ]
            for (body, status, code) in refusals {
                let answer = try await patch(body)
                #expect(answer.status == status && answer.json?["code"] as? String == code, "\(body): \(answer.status) \(String(buffer: answer.body))")
            }
            #expect(try await patch(#"{"kind": "other"}"#, type: "text/plain").status == .unsupportedMediaType)
            #expect(try await patch(#"{"kind": "other"}"#, as: .coach, "C02").status == .notFound)
            #expect(try await patch(#"{"kind": "other"}"#, as: .student, "S1001").status == .forbidden)
            #expect(try await patch(#"{"kind": "other"}"#, as: .ops, "ops").status == .forbidden)
            #expect(try stored() == before)

            // The student moves to another coach: the mark's author no longer answers the recording.
            try await daemon.runtime.database.engine.write { db in
                try db.execute(sql: "UPDATE enrolment SET coachId = 'C02' WHERE studentId = 'S1001'")
            }
            #expect(try await patch(#"{"kind": "other"}"#).status == .notFound)
            #expect(try stored() == before)
        }
    }

    @Test("""
        a mark where features meet: while its author is covered, neither they nor the covering coach edits it (the recording \
        is the cover's to answer, the mark its author's); after the cover its author edits it again; the student erased, editing \
        or adding a mark is 404 and no words are written
        """)
    func markSeams() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let created = try await annotate(daemon, client, id, #"{"at_seconds": 2.5, "kind": "tajweed", "text": "The madd."}"#)
            let mark = try #require(created.json?["id"] as? String)
            func patch(_ coach: String, _ body: String = #"{"kind": "harakah"}"#) async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/annotations/\(mark)", method: .patch,
                                         headers: try await daemon.headers(.coach, coach, [.contentType: "application/json"]), body: ByteBuffer(string: body))
            }
            func ops(_ uri: String, _ body: String) async throws -> LiveAnswer {
                try await client.execute(uri: uri, method: .post, headers: try await daemon.headers(.ops, "ops", [.contentType: "application/json"]),
                                         body: ByteBuffer(string: body))
            }
            func stored() throws -> AnnotationRecord? { try daemon.runtime.database.engine.read { db in try AnnotationRecord.fetchOne(db, key: mark) } }

            let cover = try await ops("/v1/coaches/C01/cover", #"{"covering_coach_id": "C02", "until": "2026-11-25T00:00:00Z", "reason": "leave"}"#)
            #expect(cover.status == .created, "\(String(buffer: cover.body))")
            let before = try stored()
            #expect(try await patch("C01").status == .notFound)
            #expect(try await patch("C02").status == .notFound)
            #expect(try stored() == before)
            // The cover over, the mark is its author's to edit again.
            daemon.clock.set(Date(timeIntervalSince1970: 1_795_910_400))
            let edited = try await patch("C01")
            #expect(edited.status == .ok && edited.json?["kind"] as? String == "harakah", "\(String(buffer: edited.body))")

            let erased = try await ops("/v1/students/S1001/erasure", #"{"reason": "Asked by the student", "force": true}"#)
            #expect(erased.status == .ok, "\(String(buffer: erased.body))")
            // The mark's row stays (ids and instants, as erasure keeps them), its words gone; none come back.
            let blank = try stored()
            #expect(blank?.text == "")
            let refused = try await patch("C01", #"{"text": "Still here?"}"#)
            #expect(refused.status == .notFound, "\(refused.status) \(String(buffer: refused.body))")
            #expect(try await annotate(daemon, client, id, #"{"at_seconds": 1, "kind": "other", "text": "New words"}"#).status == .notFound)
            #expect(try stored() == blank)
            let marks = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM annotation WHERE submissionId = ?", arguments: [id])
            }
            #expect(marks == 1)
        }
    }

    @Test("""
        a mark's spoken correction recorded again (PUT …/audio): new links and files, the old files gone, a retry the same; \
        refused for another coach (404 before its body), a student (403), silence (422, nothing left); taken away (DELETE …/audio) \
        only while a note stands; once the student is erased, 404 and nothing changes
        """)
    func correctionRecordedAgain() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let created = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=2&kind=tajweed", method: .post,
                                                   headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let mark = try #require(created.json?["id"] as? String)
            func links(_ answer: LiveAnswer) -> [String: String] {
                ((answer.json?["audio"] as? [String: Any])?["links"] as? [String: String]) ?? [:]
            }
            func stored() throws -> AnnotationRecord? { try daemon.runtime.database.engine.read { db in try AnnotationRecord.fetchOne(db, key: mark) } }
            func put(_ body: ByteBuffer, as role: Role = .coach, _ subject: String = "C01", type: String = "audio/wav") async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/annotations/\(mark)/audio", method: .put,
                                         headers: try await daemon.headers(role, subject, [.contentType: type]), body: body)
            }
            let first = try #require(try stored())
            let firstFiles = correctionFiles(daemon)
            #expect(firstFiles.count == 2)
            let coach = try await daemon.headers(.coach, "C01")
            let firstAudio = try #require(links(created)["audio"])
            let oldTag = try await client.execute(uri: firstAudio, method: .get, headers: coach).headers[.eTag]

            let again = try await put(try TestDaemon.fixture("speech_u8_8k.wav"))
            #expect(again.status == .ok, "\(String(buffer: again.body))")
            let newAudio = try #require(links(again)["audio"])
            #expect(newAudio != firstAudio && newAudio.hasPrefix("/v1/annotations/\(mark)/audio?clip="), "\(newAudio)")
            #expect(links(again)["waveform"]?.hasPrefix("/v1/annotations/\(mark)/waveform?clip=") == true)
            let now = try #require(try stored())
            #expect(now.audioPath != first.audioPath && now.text == first.text && now.kind == first.kind && now.atSeconds == first.atSeconds)
            // The old correction's files are gone, the new one's are there; its audio is another representation.
            #expect(Set(correctionFiles(daemon)).isDisjoint(with: firstFiles) && correctionFiles(daemon).count == 2, "\(correctionFiles(daemon))")
            let served = try await client.execute(uri: newAudio, method: .get, headers: coach)
            #expect(served.status == .ok && served.body.getString(at: 0, length: 4) == "OggS")
            #expect(served.headers[.eTag] != nil && served.headers[.eTag] != oldTag)
            // A retry stores the same again: one correction, the files of the last.
            let retried = try await put(try TestDaemon.fixture("speech_u8_8k.wav"))
            #expect(retried.status == .ok && correctionFiles(daemon).count == 2)

            let current = try stored()
            #expect(try await put(try TestDaemon.fixture("speech_u8_8k.wav"), as: .coach, "C02").status == .notFound)
            #expect(try await put(try TestDaemon.fixture("speech_u8_8k.wav"), as: .student, "S1001").status == .forbidden)
            #expect(try await put(ByteBuffer(string: "{}"), type: "application/json").status == .unsupportedMediaType)
            let silent = try await put(try TestDaemon.fixture("digital_silence.wav"))
            #expect(silent.status == .unprocessableContent, "\(String(buffer: silent.body))")
            #expect(try stored() == current && correctionFiles(daemon).count == 2)
            #expect(daemon.stagingFiles().isEmpty)

            // Taken away: not while the mark has no note; with one, the mark stays without its files.
            func remove() async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/annotations/\(mark)/audio", method: .delete, headers: coach)
            }
            let bare = try await remove()
            #expect(bare.status == .unprocessableContent && bare.json?["code"] as? String == "text_missing", "\(String(buffer: bare.body))")
            #expect(try stored() == current)
            let noted = try await client.execute(uri: "/v1/annotations/\(mark)", method: .patch,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]),
                                                 body: ByteBuffer(string: #"{"text": "Listen to the madd."}"#))
            #expect(noted.status == .ok)
            let removed = try await remove()
            #expect(removed.status == .ok && removed.json?["audio"] is NSNull && removed.json?["text"] as? String == "Listen to the madd.",
                    "\(String(buffer: removed.body))")
            #expect(correctionFiles(daemon).isEmpty)
            #expect(try await remove().status == .ok, "taken away again: done already")
            #expect(try await client.execute(uri: newAudio, method: .get, headers: coach).status == .notFound)

            // Given one again, then the student erased: neither route changes the mark any more.
            #expect(try await put(try TestDaemon.fixture("speech_u8_8k.wav")).status == .ok)
            let erased = try await client.execute(uri: "/v1/students/S1001/erasure", method: .post,
                                                  headers: try await daemon.headers(.ops, "ops", [.contentType: "application/json"]),
                                                  body: ByteBuffer(string: #"{"reason": "Asked by the student", "force": true}"#))
            #expect(erased.status == .ok, "\(String(buffer: erased.body))")
            let blank = try stored()
            #expect(try await put(try TestDaemon.fixture("speech_u8_8k.wav")).status == .notFound)
            #expect(try await remove().status == .notFound)
            #expect(try stored() == blank)
            #expect(daemon.stagingFiles().isEmpty)
        }
    }

    @Test("refused: another coach (404), a student or ops (403), each bad field with its code, a too-long correction leaving nothing behind")
    func hostile() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let valid = #"{"at_seconds": 1, "kind": "wrong_word", "text": "x"}"#
            #expect(try await annotate(daemon, client, id, valid, as: .coach, "C02").status == .notFound)
            #expect(try await annotate(daemon, client, "sub_none", valid).status == .notFound)
            #expect(try await annotate(daemon, client, id, valid, as: .student, "S1001").status == .forbidden)
            #expect(try await annotate(daemon, client, id, valid, as: .ops, "ops").status == .forbidden)
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"at_seconds": 1, "kind": "pronunciation", "text": "x"}"#, .unprocessableContent, "invalid_kind"),
                (#"{"at_seconds": 1, "surah": 104, "kind": "tajweed", "text": "x"}"#, .unprocessableContent, "surah_and_ayah_together"),
                (#"{"at_seconds": 1, "ayah": 3, "kind": "tajweed", "text": "x"}"#, .unprocessableContent, "surah_and_ayah_together"),
                (#"{"at_seconds": 1, "surah": 104, "ayah": 10, "kind": "tajweed", "text": "x"}"#, .unprocessableContent, "unknown_ayah"),
                (#"{"at_seconds": 1, "surah": 115, "ayah": 1, "kind": "tajweed", "text": "x"}"#, .unprocessableContent, "unknown_ayah"),
                (#"{"at_seconds": 999, "kind": "tajweed", "text": "x"}"#, .unprocessableContent, "at_seconds_out_of_range"),
                (#"{"at_seconds": -1, "kind": "tajweed", "text": "x"}"#, .unprocessableContent, "at_seconds_out_of_range"),
                (#"{"at_seconds": 1, "kind": "tajweed", "text": "\#(String(repeating: "a", count: 501))"}"#, .unprocessableContent, "text_too_long"),
                (#"{"at_seconds": 1, "kind": "tajweed", "text": "   "}"#, .unprocessableContent, "text_missing"),
                (#"{"at_seconds": 1, "kind": "tajweed"}"#, .badRequest, "invalid_body"),
                (#"{"at_seconds": "1", "kind": "tajweed", "text": "x"}"#, .badRequest, "invalid_body"),
                (#"{"at_seconds": 1, "kind": "tajweed", "text": "x", "student_id": "S1002"}"#, .badRequest, "invalid_body"),
            ]
            for (body, status, code) in cases {
                let response = try await annotate(daemon, client, id, body)
                #expect(response.status == status && response.json?["code"] as? String == code, "\(body): \(String(buffer: response.body))")
            }
            let text = try await client.execute(uri: "/v1/submissions/\(id)/annotations", method: .post,
                                                headers: try await daemon.headers(.coach, "C01", [.contentType: "text/plain"]),
                                                body: ByteBuffer(string: "wrong"))
            #expect(text.status == .unsupportedMediaType)

            // A spoken correction: its fields checked before the body, then 1–30 s of speech.
            let audioHeaders = try await daemon.headers(.coach, "C01", [.contentType: "audio/wav"])
            let badKind = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=1&kind=nope", method: .post,
                                                   headers: audioHeaders, body: try TestDaemon.fixture("speech_u8_8k.wav"))
            #expect(badKind.status == .unprocessableContent && badKind.json?["code"] as? String == "invalid_kind")
            let noMoment = try await client.execute(uri: "/v1/submissions/\(id)/annotations?kind=tajweed", method: .post,
                                                    headers: audioHeaders, body: try TestDaemon.fixture("speech_u8_8k.wav"))
            #expect(noMoment.status == .badRequest && noMoment.json?["code"] as? String == "invalid_query")
            let tooLong = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=1&kind=tajweed", method: .post,
                                                   headers: audioHeaders, body: try QuestionRouteTests.repeatedSpeech(times: 3))
            #expect(tooLong.status == .unprocessableContent && tooLong.json?["code"] as? String == "too_long", "\(String(buffer: tooLong.body))")
            let silent = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=1&kind=tajweed", method: .post,
                                                  headers: audioHeaders, body: try TestDaemon.fixture("digital_silence.wav"))
            #expect(silent.status == .unprocessableContent)
            let foreign = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=1&kind=tajweed", method: .post,
                                                   headers: try await daemon.headers(.coach, "C02", [.contentType: "audio/ogg"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(foreign.status == .notFound)
            #expect(try annotationRows(daemon) == 0)
            #expect(correctionFiles(daemon).isEmpty)
            #expect(daemon.stagingFiles().isEmpty)
        }
    }

    @Test("a correction's files are owned: the sweep keeps them, withdrawing the recording removes the marks and their files")
    func ownedArtifacts() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let spoken = try await client.execute(uri: "/v1/submissions/\(id)/annotations?at_seconds=3&kind=other&text=Listen",
                                                  method: .post, headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(spoken.status == .created)
            #expect(correctionFiles(daemon).count == 2)
            let report = try ArtifactSweeper(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory, grace: 0)
                .sweep(now: Date().addingTimeInterval(3_600), originalsRetentionDays: nil)  // the files' own (wall-clock) times are past the grace
            #expect(report.orphansRemoved == 0 && report.missingCount == 0)
            #expect(correctionFiles(daemon).count == 2)

            let withdrawn = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: try await daemon.headers(.student, "S1001"))
            #expect(withdrawn.status == .ok, "\(String(buffer: withdrawn.body))")
            #expect(try annotationRows(daemon) == 0)
            #expect(correctionFiles(daemon).isEmpty)
            let after = try await annotate(daemon, client, id, #"{"at_seconds": 1, "kind": "other", "text": "x"}"#)
            #expect(after.status == .conflict && after.json?["code"] as? String == "not_annotatable")
        }
    }

    @Test("a spoken correction takes an upload slot of the coach's share: with the share held by a reply still arriving, it is 429 before its body")
    func correctionTakesASlot() async throws {
        let daemon = try await TestDaemon {
            $0.http.maxConcurrentUploads = 4
            $0.http.maxUploadsPerPrincipal = 1
            $0.http.minUploadBytesPerSecond = 0
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await recording(daemon, client)
            let port = client.port
            let token = try await daemon.token(.coach, "C01")
            // C01's reply, its body still on its way: the coach's one slot.
            let held = try RawHTTPConnection(port: port)
            defer { held.close() }
            try held.send("POST /v1/submissions/\(id)/feedback HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: audio/wav\r\nContent-Length: 10000000\r\n\r\n")
            try held.send(Data(repeating: 0x52, count: 1_000))
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 1") })

            let correction = try RawHTTPConnection(port: port)
            defer { correction.close() }
            try correction.send("POST /v1/submissions/\(id)/annotations?at_seconds=1&kind=tajweed HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer \(token)\r\nContent-Type: audio/ogg\r\nContent-Length: 40000\r\nExpect: 100-continue\r\n\r\n")
            let refused = await correction.read(until: "too_many_uploads_for_you")
            #expect(refused.hasPrefix("HTTP/1.1 429"), "got: \(refused.prefix(80))")
            // A written annotation needs no slot.
            let written = try await annotate(daemon, client, id, #"{"at_seconds": 1, "kind": "tajweed", "text": "Madd."}"#)
            #expect(written.status == .created)
            #expect(try annotationRows(daemon) == 1)
        }
    }
}
