import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Questions about feedback")
struct QuestionRouteTests {
    @Test("a question over HTTP reaches the coach (event and queue), the answer reaches the student; both are on the timeline and the submission")
    func askAndAnswer() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (id, feedbackId) = try await daemon.answeredRecording(client)
            let comments = "/v1/feedback/\(feedbackId)/comments"
            let studentJSON = try await daemon.headers(.student, "S1001", [.contentType: "application/json"])

            let question = "In ayah 3, should the madd be four counts or six?"
            let asked = try await client.execute(uri: comments, method: .post, headers: studentJSON,
                                                 body: ByteBuffer(string: #"{"text": "  \#(question)  "}"#))
            #expect(asked.status == .created && asked.json?["author"] as? String == "student" && asked.json?["text"] as? String == question)
            let tooLong = try await client.execute(uri: comments, method: .post, headers: studentJSON,
                                                   body: ByteBuffer(string: #"{"text": "\#(String(repeating: "a", count: 2_001))"}"#))
            #expect(tooLong.status == .badRequest)
            let otherStudent = try await client.execute(uri: comments, method: .post,
                                                        headers: try await daemon.headers(.student, "S1002", [.contentType: "application/json"]),
                                                        body: ByteBuffer(string: #"{"text": "Me too?"}"#))
            #expect(otherStudent.status == .notFound)
            let otherCoach = try await client.execute(uri: comments, method: .post,
                                                      headers: try await daemon.headers(.coach, "C02", [.contentType: "application/json"]),
                                                      body: ByteBuffer(string: #"{"text": "Four."}"#))
            #expect(otherCoach.status == .notFound)

            // The coach hears of it and sees it in the queue.
            let coach = try await daemon.headers(.coach, "C01")
            let queue = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: coach)
            let open = try #require(queue.json?["questions"] as? [[String: Any]])
            #expect((open.last?["comment"] as? [String: Any])?["text"] as? String == question)
            #expect(open.last?["overdue"] as? Bool == false)
            let coachFeed = try await client.execute(uri: "/v1/coaches/C01/events", method: .get, headers: coach)
            let asks = (coachFeed.json?["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "question_asked" }
            #expect(asks.count >= 1 && (asks.last?["message"] as? String)?.contains(question) == true)

            let answer = "Six: it is a madd lazim."
            let answered = try await client.execute(uri: comments, method: .post,
                                                    headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]),
                                                    body: ByteBuffer(string: #"{"text": "\#(answer)"}"#))
            #expect(answered.status == .created && answered.json?["author"] as? String == "coach")
            let after = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: coach)
            #expect((after.json?["questions"] as? [Any])?.isEmpty == true)
            let studentFeed = try await client.execute(uri: "/v1/students/S1001/events", method: .get,
                                                       headers: try await daemon.headers(.student, "S1001"))
            let answers = (studentFeed.json?["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "question_answered" }
            #expect(answers.count == 1 && (answers.first?["message"] as? String)?.contains(answer) == true)

            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get,
                                                    headers: try await daemon.headers(.student, "S1001"))
            let week12 = try #require((timeline.json?["weeks"] as? [[String: Any]])?[11])
            let thread = try #require(((week12["feedback"] as? [[String: Any]])?.first)?["comments"] as? [[String: Any]])
            #expect(thread.suffix(2).map { $0["text"] as? String } == [question, answer])
            #expect(thread.first { $0["text"] as? String == question }?["answered_at"] as? String != nil)
            let shown = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: try await daemon.headers(.student, "S1001"))
            let replyThread = try #require(((shown.json?["feedback"] as? [[String: Any]])?.first)?["comments"] as? [[String: Any]])
            #expect(replyThread.count == thread.count)
        }
        let facts = try await daemon.runtime.database.statusFacts(now: daemon.clock.now, feedbackDue: 48 * 3_600)
        #expect(facts.openQuestions == 0 && facts.overdueQuestions == 0)
    }

    /// `speech_u8_8k.wav` (11 s, 8 kHz, 8-bit: small) repeated `times` times, as one WAV.
    static func repeatedSpeech(times: Int) throws -> ByteBuffer {
        let source = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech_u8_8k.wav"))
        let marker = Data("data".utf8)
        let at = try #require(source.range(of: marker))
        let size = source[at.upperBound..<at.upperBound + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let pcm = source[at.upperBound + 4..<min(source.count, at.upperBound + 4 + size)]
        var header = Data(source[..<at.upperBound])
        func little(_ value: Int) -> Data { Data((0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }) }
        let total = pcm.count * times
        header.replaceSubrange(4..<8, with: little(header.count + 4 + total - 8))
        var wav = header + little(total)
        for _ in 0..<times { wav.append(pcm) }
        return ByteBuffer(bytes: wav)
    }

    @Test("a voice question (1 s to 3 min) goes through the audio chain; the coach answers by voice; refused clips leave nothing")
    func voiceQuestions() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (_, feedbackId) = try await daemon.answeredRecording(client)
            let comments = "/v1/feedback/\(feedbackId)/comments"
            let studentAudio = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])

            let asked = try await client.execute(uri: comments + "?text=Is%20my%20madd%20right%3F", method: .post, headers: studentAudio,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(asked.status == .created && asked.json?["text"] as? String == "Is my madd right?")
            let clip = try #require(asked.json?["audio"] as? [String: Any])
            #expect(abs((clip["duration_seconds"] as? Double ?? 0) - 11.06) < 0.05)
            let commentId = try #require(asked.json?["id"] as? String)
            let links = try #require(clip["links"] as? [String: String])
            #expect(links["audio"] == "/v1/comments/\(commentId)/audio" && links["waveform"] == "/v1/comments/\(commentId)/waveform")

            // The coach hears of it, with the clip's length, and plays it.
            let coach = try await daemon.headers(.coach, "C01")
            let feed = try await client.execute(uri: "/v1/coaches/C01/events", method: .get, headers: coach)
            let asks = (feed.json?["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "question_asked" }
            #expect((asks.last?["message"] as? String)?.hasSuffix("“Is my madd right?” (a 0:11 voice message)") == true)
            let played = try await client.execute(uri: links["audio"]!, method: .get, headers: coach)
            #expect(played.status == .ok && played.headers[.contentType] == "audio/ogg" && played.body.getString(at: 0, length: 4) == "OggS")
            let peaks = try await client.execute(uri: links["waveform"]!, method: .get, headers: coach)
            #expect(peaks.status == .ok && peaks.json?["version"] as? Int == 2)
            let stranger = try await client.execute(uri: links["audio"]!, method: .get, headers: try await daemon.headers(.student, "S1002"))
            #expect(stranger.status == .notFound)

            // Refused: over 3 minutes, silence, not audio, someone else's reply. Nothing is kept.
            let long = try await client.execute(uri: comments, method: .post, headers: studentAudio, body: try Self.repeatedSpeech(times: 17))
            #expect(long.status == .unprocessableContent && long.json?["code"] as? String == "too_long")
            let silent = try await client.execute(uri: comments, method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/wav"]),
                                                  body: try TestDaemon.fixture("digital_silence.wav"))
            #expect(silent.status == .unprocessableContent && silent.json?["code"] as? String == "silent")
            let text = try await client.execute(uri: comments, method: .post,
                                                headers: try await daemon.headers(.student, "S1001", [.contentType: "text/plain"]),
                                                body: ByteBuffer(string: "hello"))
            #expect(text.status == .unsupportedMediaType)
            let other = try await client.execute(uri: comments, method: .post,
                                                 headers: try await daemon.headers(.student, "S1002", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(other.status == .notFound)
            let store = daemon.runtime.stateDirectory.artifactStore
            #expect(store.allFiles().filter { $0.hasPrefix("comments/") }.count == 2, "one clip: its Opus file and its peaks")

            // A voice answer alone, no text.
            let answered = try await client.execute(uri: comments, method: .post,
                                                    headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                    body: try TestDaemon.fixture("speech.opus"))
            #expect(answered.status == .created && answered.json?["text"] as? String == "" && answered.json?["author"] as? String == "coach")
            let studentFeed = try await client.execute(uri: "/v1/students/S1001/events", method: .get,
                                                       headers: try await daemon.headers(.student, "S1001"))
            let answers = (studentFeed.json?["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "question_answered" }
            #expect((answers.last?["message"] as? String)?.hasSuffix(": a 0:11 voice message") == true)

            // The thread on the timeline carries the clips.
            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get,
                                                    headers: try await daemon.headers(.student, "S1001"))
            let week12 = try #require((timeline.json?["weeks"] as? [[String: Any]])?[11])
            let thread = try #require(((week12["feedback"] as? [[String: Any]])?.first)?["comments"] as? [[String: Any]])
            #expect(thread.map { $0["audio"] is [String: Any] } == [true, true])
        }
        let facts = try await daemon.runtime.database.statusFacts(now: daemon.clock.now, feedbackDue: 48 * 3_600)
        #expect(facts.recentArtifactPaths.filter { $0.hasPrefix("comments/") }.count == 4)
        let sweep = try ArtifactSweeper(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory, grace: 0)
            .sweep(now: Date().addingTimeInterval(3_600), originalsRetentionDays: nil)
        #expect(sweep.orphansRemoved == 0 && sweep.missing.isEmpty, "the sweep knows the clips' files")
    }
}
