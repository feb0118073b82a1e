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
        try await daemon.application().test(.live) { client in
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
}
