import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Real responses, written down as `Tests/contract/validate_responses.py` reads them.
private final class ResponseLog: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") + "\n" } }

    /// Records `response` as the answer of `method template` (the document's path).
    @discardableResult
    func record(_ method: HTTPRequest.Method, _ template: String, _ response: LiveAnswer) -> LiveAnswer {
        let type = response.headers[.contentType] ?? ""
        let textual = type.contains("json") || type.hasPrefix("text/") || type.contains("yaml")
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.canonicalName] = field.value }
        let entry: [String: Any] = [
            "method": method.rawValue, "path": template, "status": Int(response.status.code), "content_type": type,
            "headers": headers, "body": textual ? String(buffer: response.body) : NSNull(),
        ]
        if let data = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) {
            lines.withLock { $0.append(String(decoding: data, as: UTF8.self)) }
        }
        return response
    }
}

private struct CallFailure: Error, CustomStringConvertible {
    let description: String
}

/// Runs the validator over `jsonl`; its exit status and output.
private func validate(_ jsonl: String, requireEveryOperation: Bool) async throws -> ProcessResult {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.path("responses.jsonl")
    try jsonl.write(toFile: file, atomically: true, encoding: .utf8)
    let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
    let script = packageRoot.appendingPathComponent("Tests/contract/validate_responses.py").path
    let document = packageRoot.appendingPathComponent("openapi/openapi.yaml").path
    return try await runProcess(python, [script, document, file] + (requireEveryOperation ? ["--require-every-operation"] : []), timeout: TestTime.hangInterval)
}

/// Every route's real answers — successes and the documented errors — are checked against
/// `openapi/openapi.yaml` with a JSON Schema validator (Python `jsonschema`, from the test
/// virtual environment `make test` makes), so drift between the server and its contract
/// fails the build.
@Suite("OpenAPI document: every response matches its schema")
struct OpenAPIResponseTests {
    @Test("The validator is there (make test-venv) and passes a documented answer")
    func validatorWorks() async throws {
        let health = #"{"body":"{\"status\":\"ok\"}","content_type":"application/json","headers":{},"method":"GET","path":"/healthz","status":200}"#
        let result = try await validate(health + "\n", requireEveryOperation: false)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr) — run `make test-venv` first")
    }

    @Test("Drift fails: a missing member, a wrong type, an undocumented status or media type")
    func driftFails() async throws {
        let problem = #"{\"type\":\"https://tilawa.invalid/problems/missing_token\",\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"x\",\"instance\":\"/v1/status\"PLUS}"#
        func line(_ status: Int, _ type: String, _ body: String, headers: String = #"{"WWW-Authenticate":"Bearer"}"#) -> String {
            #"{"body":"\#(body)","content_type":"\#(type)","headers":\#(headers),"method":"GET","path":"/v1/status","status":\#(status)}"#
        }
        let valid = line(401, "application/problem+json", problem.replacingOccurrences(of: "PLUS", with: #",\"code\":\"missing_token\""#))
        #expect(try await validate(valid + "\n", requireEveryOperation: false).status == 0)
        let drifted = [
            line(401, "application/problem+json", problem.replacingOccurrences(of: "PLUS", with: "")),
            line(401, "application/problem+json", problem.replacingOccurrences(of: "PLUS", with: #",\"code\":7"#)),
            line(401, "application/json", problem.replacingOccurrences(of: "PLUS", with: #",\"code\":\"missing_token\""#)),
            line(418, "application/problem+json", problem.replacingOccurrences(of: "PLUS", with: #",\"code\":\"teapot\""#)),
        ]
        for body in drifted {
            let result = try await validate(body + "\n", requireEveryOperation: false)
            #expect(result.status == 1, "accepted a drifted response: \(body)")
            #expect(result.stdout.contains("FAIL "))
        }
    }

    @Test("Every operation of the document, its successes and documented errors, answers as its schema says")
    func everyRoute() async throws {
        let daemon = try await TestDaemon(configure: {
            $0.http.maxUploadBytes = 1024 * 1024
            $0.desk.linkRequest = true
            let scimToken = $0.workingDirectory + "/scim.token"
            FileManager.default.createFile(atPath: scimToken, contents: Data(SCIMRouteTests.token.utf8))
            $0.scim = .init(tokenFile: scimToken)
        })
        defer { daemon.remove() }
        let log = ResponseLog()
        let submissionBody = Mutex<String?>(nil)
        try await daemon.application().live { client in
            func call(_ method: HTTPRequest.Method, _ template: String, _ uri: String, _ headers: HTTPFields = [:],
                      body: ByteBuffer? = nil) async throws -> LiveAnswer {
                do {
                    // Every GET is asked as HEAD too, first (a GET may change what a second
                    // read sees: a reply listened to): GET's status and headers, no body. The
                    // upload's URL keeps a HEAD of its own (the tus and draft offset probe).
                    if method == .get, template != "/v1/uploads/{id}" {
                        let head = log.record(.head, template, try await client.execute(uri: uri, method: .head, headers: headers))
                        let get = try await client.execute(uri: uri, method: .get, headers: headers)
                        #expect(head.body.readableBytes == 0, "HEAD \(uri) has a body")
                        #expect(head.status == get.status, "HEAD \(uri): \(head.status) vs GET \(get.status)")
                        // What changes between two reads (counters, uptime) may change its length.
                        let volatile = ["/metrics", "/readyz", "/v1/status"].contains(template)
                        for name in [HTTPField.Name.contentType, .contentLength, .eTag, .contentRange, .acceptRanges, .retryAfter]
                        where !(volatile && name == .contentLength) {
                            #expect(head.headers[name] == get.headers[name], "HEAD \(uri): \(name) \(head.headers[name] ?? "-") vs \(get.headers[name] ?? "-")")
                        }
                        return log.record(method, template, get)
                    }
                    return log.record(method, template, try await client.execute(uri: uri, method: method, headers: headers, body: body))
                } catch {
                    throw CallFailure(description: "\(method) \(uri): \(error)")
                }
            }
            func auth(_ role: Role, _ subject: String, _ extra: HTTPFields = [:]) async throws -> HTTPFields {
                try await daemon.headers(role, subject, extra)
            }
            let opus = try TestDaemon.fixture("speech.opus")
            let ogg: HTTPFields = [.contentType: "audio/ogg"]
            let upload = "/v1/students/{id}/weeks/{slot}/submissions"

            // Each part of the run is a closure of its own: one async function of 500 lines took
            // the compiler more than 20 GB to lower (its coroutine frame); what parts share is here.
            var created: LiveAnswer = LiveAnswer(status: .ok, headers: [:], body: ByteBuffer())
            var id: String = ""
            var student: HTTPFields = [:]
            var read: String = ""
            var audio: LiveAnswer = LiveAnswer(status: .ok, headers: [:], body: ByteBuffer())
            var feedback: String = ""
            var coach: HTTPFields = [:]
            var keyedReply: HTTPFields = [:]
            var reply: LiveAnswer = LiveAnswer(status: .ok, headers: [:], body: ByteBuffer())
            var feedbackId: String = ""
            var json: HTTPFields = [:]
            var thread: String = ""
            var askJSON: HTTPFields = [:]
            var voiceId: String = ""
            var backOfficeJSON: HTTPFields = [:]
            var backOfficeStudentJSON: HTTPFields = [:]
            var backOfficeText: HTTPFields = [:]
            var grants: String = ""
            var annotations: String = ""
            var markId: String = ""
            var one: String = ""
            var creation: String = ""
            var resumable: String = ""
            var opusBytes: Data = Data()
            var placement: String = ""
            var opsJSON: HTTPFields = [:]
            func step(_ part: () async throws -> Void) async throws { try await part() }

            // Uploads: accepted, replayed, and each documented refusal.
            try await step {
                var keyed = try await auth(.student, "S1001", ogg)
                keyed[.idempotencyKey] = "contract-1"
                created = try await call(.post, upload, "/v1/students/S1001/weeks/12/submissions", keyed, body: opus)
                #expect(created.status == .created)
                submissionBody.withLock { $0 = String(buffer: created.body) }
                id = try #require(created.json?["id"] as? String)
                #expect(try await call(.post, upload, "/v1/students/S1001/weeks/12/submissions", keyed, body: opus).headers[.idempotentReplayed] == "true")
                _ = try await call(.post, upload, "/v1/students/S1001/weeks/16/submissions", try await auth(.student, "S1001", ogg), body: opus)
                _ = try await call(.post, upload, "/v1/students/S1001/weeks/12/submissions", ogg, body: opus)
                _ = try await call(.post, upload, "/v1/students/S1001/weeks/12/submissions", try await auth(.coach, "C01", ogg), body: opus)
                _ = try await call(.post, upload, "/v1/students/S1001/weeks/12/submissions", try await auth(.student, "S1002", ogg), body: opus)
                _ = try await call(.post, upload, "/v1/students/S1003/weeks/15/submissions", try await auth(.student, "S1003", ogg), body: opus)
                _ = try await call(.post, upload, "/v1/students/S1003/weeks/eoc/submissions", try await auth(.student, "S1003", ogg), body: opus)
                _ = try await call(.post, upload, "/v1/students/S1003/weeks/12/submissions", try await auth(.student, "S1003", [.contentType: "text/plain"]), body: opus)
                _ = try await call(.post, upload, "/v1/students/S1003/weeks/12/submissions", try await auth(.student, "S1003", [.contentType: "audio/wav"]),
                                   body: try TestDaemon.fixture("random_bytes.wav"))
                var rejectedKey = try await auth(.student, "S1003", [.contentType: "audio/wav"])
                rejectedKey[.idempotencyKey] = "contract-silent"
                for _ in 0..<2 {  // the second is the stored answer of the first: a problem too
                    _ = try await call(.post, upload, "/v1/students/S1003/weeks/12/submissions", rejectedKey, body: try TestDaemon.fixture("digital_silence.wav"))
                }
                _ = try await call(.post, upload, "/v1/students/S1003/weeks/12/submissions", try await auth(.student, "S1003", [.contentType: "audio/wav"]),
                                   body: try TestDaemon.fixture("empty.wav"))
                for week in [10, 11] {
                    _ = try await call(.post, upload, "/v1/students/S1005/weeks/\(week)/submissions", try await auth(.student, "S1005", ogg), body: opus)
                }
                _ = try await call(.post, upload, "/v1/students/S1005/weeks/12/submissions", try await auth(.student, "S1005", ogg), body: opus)  // 429
                _ = try await call(.post, upload, "/v1/students/S1001/weeks/assessment/submissions", try await auth(.student, "S1001", ogg), body: opus)

                #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            }

            // An aligned recording: its ayahs carry start_seconds and end_seconds, the isti'adha is ayah 0.
            try await step {
                try await daemon.runtime.database.engine.write { db in
                    try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '1:1-7' WHERE levelId = 'L1' AND week = 12")
                }
                let recited = try await call(.post, upload, "/v1/students/S1008/weeks/12/submissions",
                                             try await auth(.student, "S1008", [.contentType: "audio/wav"]),
                                             body: try TestDaemon.fixture("recitation_fatiha_16k.wav"))
                let recitedId = try #require(recited.json?["id"] as? String)
                #expect(await daemon.eventually { try daemon.runtime.database.submission(id: recitedId)?.state == .awaitingFeedback })
                let aligned = try await call(.get, "/v1/submissions/{id}", "/v1/submissions/\(recitedId)", try await auth(.student, "S1008"))
                #expect((aligned.json?["ayahs"] as? [[String: Any]])?.first?["start_seconds"] is Double)
            }

            // Reading a student's data.
            try await step {
                student = try await auth(.student, "S1001")
                for (template, uri) in [("/v1/students/{id}/timeline", "/v1/students/S1001/timeline"), ("/v1/students/{id}/events", "/v1/students/S1001/events")] {
                    _ = try await call(.get, template, uri, student)
                    _ = try await call(.get, template, uri)
                    _ = try await call(.get, template, uri.replacingOccurrences(of: "S1001", with: "S9999"), try await auth(.ops, "ops"))
                    _ = try await call(.get, template, uri.replacingOccurrences(of: "S1001", with: "bad.id"), student)
                }
                _ = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events", try await auth(.coach, "C01"))
                _ = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events?after=x", student)
                _ = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events?after=999999", student)
                _ = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events?before=999999999999999999&limit=50", student)
                _ = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events?before=&limit=50", student)
                read = "/v1/students/{id}/events/read"
                let studentJSON = try await auth(.student, "S1001", [.contentType: "application/json"])
                _ = try await call(.post, read, "/v1/students/S1001/events/read", studentJSON, body: ByteBuffer(string: #"{"cursor": "1"}"#))
                _ = try await call(.post, read, "/v1/students/S1001/events/read", studentJSON, body: ByteBuffer(string: #"{"cursor": 1}"#))
                _ = try await call(.post, read, "/v1/students/S1001/events/read", try await auth(.student, "S1001", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "1"))
                _ = try await call(.post, read, "/v1/students/S1001/events/read", try await auth(.coach, "C01", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"cursor": "1"}"#))
                _ = try await call(.post, read, "/v1/students/S1001/events/read", [.contentType: "application/json"],
                                   body: ByteBuffer(string: #"{"cursor": "1"}"#))
            }

            // A submission and its artifacts.
            try await step {
                _ = try await call(.get, "/v1/submissions/{id}", "/v1/submissions/\(id)", student)
                _ = try await call(.get, "/v1/submissions/{id}", "/v1/submissions/sub_none", student)
                _ = try await call(.get, "/v1/submissions/{id}", "/v1/submissions/\(id)")
                audio = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/\(id)/audio", student)
                var ranged = student
                ranged[.range] = "bytes=0-99"
                _ = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/\(id)/audio", ranged)
                var cached = student
                cached[.ifNoneMatch] = audio.headers[.eTag] ?? "*"
                _ = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/\(id)/audio", cached)
                _ = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/\(id)/audio?format=mp4", student)
                _ = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/\(id)/audio", student + [.accept: "audio/x-caf"])
                _ = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/\(id)/audio?format=wav", student)
                _ = try await call(.get, "/v1/submissions/{id}/audio", "/v1/submissions/sub_none/audio", student)
                _ = try await call(.get, "/v1/submissions/{id}/waveform", "/v1/submissions/\(id)/waveform", student)
                _ = try await call(.get, "/v1/submissions/{id}/waveform", "/v1/submissions/sub_none/waveform", student)
            }

            // Coach replies.
            try await step {
                feedback = "/v1/submissions/{id}/feedback"
                coach = try await auth(.coach, "C01", ogg)
                _ = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", try await auth(.student, "S1001", ogg), body: opus)
                _ = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", try await auth(.coach, "C02", ogg), body: opus)
                _ = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", try await auth(.coach, "C01", [.contentType: "text/plain"]), body: opus)
                _ = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", try await auth(.coach, "C01", [.contentType: "audio/wav"]),
                                   body: try TestDaemon.fixture("digital_silence.wav"))
                keyedReply = coach
                keyedReply[.idempotencyKey] = "contract-reply"
                reply = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", keyedReply, body: opus)
                feedbackId = try #require(reply.json?["id"] as? String)
            }
            // The retry after a lost answer: the same reply, replayed; another body under the key: 409.
            try await step {
                let replayedReply = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", keyedReply, body: opus)
                #expect(replayedReply.status == .created && replayedReply.headers[.idempotentReplayed] == "true")
                let reusedReply = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", keyedReply,
                                                 body: try TestDaemon.fixture("speech.m4a"))
                #expect(reusedReply.json?["code"] as? String == "idempotency_key_reused")
                json = try await auth(.coach, "C01", [.contentType: "application/json"])
                _ = try await call(.patch, "/v1/feedback/{id}", "/v1/feedback/\(feedbackId)", json, body: ByteBuffer(string: #"{"notes": "Well done."}"#))
                _ = try await call(.patch, "/v1/feedback/{id}", "/v1/feedback/\(feedbackId)", json, body: ByteBuffer(string: #"{"note": 1}"#))
                _ = try await call(.patch, "/v1/feedback/{id}", "/v1/feedback/\(feedbackId)", try await auth(.coach, "C01", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "notes"))
                _ = try await call(.patch, "/v1/feedback/{id}", "/v1/feedback/fb_none", json, body: ByteBuffer(string: #"{"notes": null}"#))
                #expect(await daemon.eventually { try daemon.runtime.database.feedback(id: feedbackId)?.audioPath != nil })
                _ = try await call(.post, feedback, "/v1/submissions/\(id)/feedback", coach, body: opus)  // no longer awaiting: 409
                for template in ["/v1/feedback/{id}/audio", "/v1/feedback/{id}/waveform"] {
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: feedbackId), student)
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: "fb_none"), student)
                }
                thread = "/v1/feedback/{id}/comments"
                askJSON = try await auth(.student, "S1001", [.contentType: "application/json"])
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", askJSON, body: ByteBuffer(string: #"{"text": "Why?"}"#))
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", try await auth(.coach, "C01", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"text": "Because."}"#))
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", askJSON, body: ByteBuffer(string: #"{"text": ""}"#))
                _ = try await call(.post, thread, "/v1/feedback/fb_none/comments", askJSON, body: ByteBuffer(string: #"{"text": "Why?"}"#))
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", try await auth(.ops, "ops", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"text": "Ops?"}"#))
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", try await auth(.student, "S1001", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "Why?"))
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", [.contentType: "application/json"],
                                   body: ByteBuffer(string: #"{"text": "Why?"}"#))
                let voice = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments?text=Listen", try await auth(.student, "S1001", ogg),
                                           body: opus)
                voiceId = try #require(voice.json?["id"] as? String)
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", try await auth(.student, "S1001", [.contentType: "audio/wav"]),
                                   body: try TestDaemon.fixture("digital_silence.wav"))
                _ = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments?text=\(String(repeating: "a", count: 2_001))",
                                   try await auth(.student, "S1001", ogg), body: opus)
            }
            // Past comments.max_per_minute (10): 429 too_many_comments with Retry-After.
            try await step {
                var lastComment: LiveAnswer?
                for index in 0..<11 {
                    lastComment = try await call(.post, thread, "/v1/feedback/\(feedbackId)/comments", askJSON,
                                                 body: ByteBuffer(string: #"{"text": "Again \#(index)?"}"#))
                    if lastComment?.status == .tooManyRequests { break }
                }
                #expect(lastComment?.status == .tooManyRequests && lastComment?.json?["code"] as? String == "too_many_comments")
                for template in ["/v1/comments/{id}/audio", "/v1/comments/{id}/waveform"] {
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: voiceId), student)
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: "cm_none"), student)
                }
                let listened = "/v1/feedback/{id}/listened"
                _ = try await call(.post, listened, "/v1/feedback/\(feedbackId)/listened", student)
                _ = try await call(.post, listened, "/v1/feedback/fb_none/listened", student)
                _ = try await call(.post, listened, "/v1/feedback/\(feedbackId)/listened", try await auth(.coach, "C01"))
                _ = try await call(.post, listened, "/v1/feedback/\(feedbackId)/listened")
                _ = try await call(.post, listened, "/v1/feedback/bad.id/listened", student)
                let oneRead = "/v1/students/{id}/events/{event_id}/read"
                let feedPage = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events", student)
                let eventId = try #require((feedPage.json?["events"] as? [[String: Any]])?.first?["id"] as? String)
                _ = try await call(.post, oneRead, "/v1/students/S1001/events/\(eventId)/read", student)
                _ = try await call(.post, oneRead, "/v1/students/S1001/events/evt_none/read", student)
                _ = try await call(.post, oneRead, "/v1/students/S1001/events/\(eventId)/read", try await auth(.coach, "C01"))
                _ = try await call(.post, oneRead, "/v1/students/S1001/events/bad.id/read", student)
                _ = try await call(.post, oneRead, "/v1/students/S1001/events/\(eventId)/read")
            }

            // Announcements: now (published), later (scheduled, then cancelled), refusals.
            try await step {
                let announcer = try await auth(.ops, "ops", [.contentType: "application/json"])
                let announcements = "/v1/announcements", announcement = "/v1/announcements/{id}"
                _ = try await call(.post, announcements, announcements, announcer,
                                   body: ByteBuffer(string: #"{"title": "No class", "body": "Closed on Friday.", "audience": {"level": "L2"}}"#))
                let scheduled = try await call(.post, announcements, announcements, announcer, body: ByteBuffer(string:
                    #"{"title": "Later", "body": "Soon.", "audience": {"level": "L1"}, "publish_at": "2030-01-01T00:00:00Z"}"#))
                let scheduledId = try #require(scheduled.json?["id"] as? String)
                _ = try await call(.post, announcements, announcements, announcer,
                                   body: ByteBuffer(string: #"{"title": "x", "body": "y", "audience": {"coach": "C99"}}"#))
                _ = try await call(.post, announcements, announcements, announcer, body: ByteBuffer(string: #"{"title": 1}"#))
                _ = try await call(.post, announcements, announcements, try await auth(.student, "S1001", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"title": "x", "body": "y", "audience": {"all": true}}"#))
                _ = try await call(.delete, announcement, "/v1/announcements/\(scheduledId)", try await auth(.ops, "ops"))
                _ = try await call(.delete, announcement, "/v1/announcements/ann_none", try await auth(.ops, "ops"))
            }

            // A coach's photo: none here (404 no_photo), an unknown coach, no token.
            try await step {
                let photo = "/v1/coaches/{id}/photo"
                _ = try await call(.get, photo, "/v1/coaches/C01/photo", student)
                _ = try await call(.get, photo, "/v1/coaches/C99/photo", student)
                _ = try await call(.get, photo, "/v1/coaches/C01/photo")
            }

            // Devices: registered, updated, listed, refused (a bad token, a bad body, another's), signed out.
            try await step {
                let token = String(repeating: "ab", count: 32)
                for (owner, id, role) in [("students", "S1001", Role.student), ("coaches", "C01", Role.coach)] {
                    let list = "/v1/\(owner)/{id}/devices", one = "/v1/\(owner)/{id}/devices/{device_id}"
                    let json = try await auth(role, id, [.contentType: "application/json"])
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-1", json,
                                       body: ByteBuffer(string: #"{"platform": "ios", "token": "\#(token)", "environment": "sandbox", "locale": "ar-EG"}"#))
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-1", json,
                                       body: ByteBuffer(string: #"{"platform": "ios", "token": "\#(token)", "app_version": "2.4.1"}"#))
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-2", json, body: ByteBuffer(string: #"{"platform": "ios", "token": "xyz"}"#))
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-2", json, body: ByteBuffer(string: #"{"platform": "web", "token": "x"}"#))
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-2", try await auth(role, id, [.contentType: "text/plain"]),
                                       body: ByteBuffer(string: "x"))
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-2", try await auth(.ops, "ops", [.contentType: "application/json"]),
                                       body: ByteBuffer(string: #"{"platform": "android", "token": "fcm:1"}"#))
                    _ = try await call(.put, one, "/v1/\(owner)/\(id)/devices/phone-2")
                    _ = try await call(.get, list, "/v1/\(owner)/\(id)/devices", try await auth(role, id))
                    _ = try await call(.get, list, "/v1/\(owner)/\(id)/devices", try await auth(.ops, "ops"))
                    _ = try await call(.get, list, "/v1/\(owner)/\(id == "S1001" ? "S1002" : "C02")/devices", try await auth(role, id))
                    _ = try await call(.get, list, "/v1/\(owner)/\(id)/devices", try await auth(.student, "S1002"))
                    _ = try await call(.get, list, "/v1/\(owner)/\(id)/devices")
                    _ = try await call(.delete, one, "/v1/\(owner)/\(id)/devices/phone-1", try await auth(role, id))
                    _ = try await call(.delete, one, "/v1/\(owner)/\(id)/devices/phone-1", try await auth(role, id))
                    _ = try await call(.delete, one, "/v1/\(owner)/\(id)/devices/bad%20id", try await auth(role, id))
                    _ = try await call(.delete, one, "/v1/\(owner)/\(id)/devices/phone-1", try await auth(.ops, "ops"))
                    _ = try await call(.delete, one, "/v1/\(owner)/\(id)/devices/phone-1")
                }
            }

            // Preferences: read, changed, refused (another student's, a coach, a bad zone, a bad body).
            try await step {
                let preferences = "/v1/students/{id}/preferences"
                let preferencesJSON = try await auth(.student, "S1001", [.contentType: "application/json"])
                _ = try await call(.get, preferences, "/v1/students/S1001/preferences", student)
                _ = try await call(.put, preferences, "/v1/students/S1001/preferences", preferencesJSON,
                                   body: ByteBuffer(string: #"{"time_zone": "Asia/Jakarta", "push": {"deadlines": false}}"#))
                _ = try await call(.put, preferences, "/v1/students/S1001/preferences", preferencesJSON, body: ByteBuffer(string: #"{"time_zone": "EST"}"#))
                _ = try await call(.put, preferences, "/v1/students/S1001/preferences", preferencesJSON, body: ByteBuffer(string: #"{"push": {"deadlines": 0}}"#))
                _ = try await call(.put, preferences, "/v1/students/S1001/preferences", try await auth(.student, "S1001", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "x"))
                _ = try await call(.put, preferences, "/v1/students/S1002/preferences", preferencesJSON, body: ByteBuffer(string: #"{"time_zone": null}"#))
                _ = try await call(.get, preferences, "/v1/students/S1001/preferences", try await auth(.coach, "C01"))
                _ = try await call(.get, preferences, "/v1/students/S1001/preferences")
                _ = try await call(.put, preferences, "/v1/students/S1001/preferences", try await auth(.ops, "ops", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"time_zone": null}"#))
            }

            // The back office: each action done, and each documented refusal.
            try await step {
                backOfficeJSON = try await auth(.ops, "amina", [.contentType: "application/json"])
                backOfficeStudentJSON = try await auth(.student, "S1001", [.contentType: "application/json"])
                backOfficeText = try await auth(.ops, "amina", [.contentType: "text/plain"])
                let extensions = "/v1/students/{id}/extensions"
                for (uri, headers, body) in [
                    ("/v1/students/S1001/extensions", backOfficeJSON, #"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "Ill"}"#),
                    ("/v1/students/S1001/extensions", backOfficeJSON, #"{"week": 11, "due_at": "2026-11-01T00:00:00Z", "reason": "Ill"}"#),
                    ("/v1/students/S1001/extensions", backOfficeJSON, #"{"week": 11}"#),
                    ("/v1/students/S1011/extensions", backOfficeJSON, #"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "Ill"}"#),
                    ("/v1/students/S9999/extensions", backOfficeJSON, #"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "Ill"}"#),
                    ("/v1/students/S1001/extensions", backOfficeStudentJSON, #"{"reason": "x"}"#),
                    ("/v1/students/S1001/extensions", backOfficeText, "x"),
                    ("/v1/students/S1001/extensions", [.contentType: "application/json"], "{}"),
                ] {
                    _ = try await call(.post, extensions, uri, headers, body: ByteBuffer(string: body))
                }
                grants = "/v1/students/{id}/attempt-grants"
                for (uri, headers, body) in [
                    ("/v1/students/S1002/attempt-grants", backOfficeJSON, #"{"count": 1, "expires_at": "2026-11-29T00:00:00Z", "reason": "Ill"}"#),
                    ("/v1/students/S1002/attempt-grants", backOfficeJSON, #"{"count": 0, "expires_at": "2026-11-29T00:00:00Z", "reason": "Ill"}"#),
                    ("/v1/students/S1002/attempt-grants", backOfficeJSON, #"{"count": 1, "until": "2026-11-29T00:00:00Z", "reason": "Ill"}"#),
                    ("/v1/students/S9999/attempt-grants", backOfficeJSON, #"{"count": 1, "expires_at": "2026-11-29T00:00:00Z", "reason": "Ill"}"#),
                    ("/v1/students/S1002/attempt-grants", backOfficeStudentJSON, "{}"),
                    ("/v1/students/S1002/attempt-grants", backOfficeText, "x"),
                    ("/v1/students/S1002/attempt-grants", [.contentType: "application/json"], "{}"),
                ] {
                    _ = try await call(.post, grants, uri, headers, body: ByteBuffer(string: body))
                }
            }
            // A retried grant under its Idempotency-Key: the first answer replayed; the key with another body, 422.
            try await step {
                var keyedGrant = backOfficeJSON
                keyedGrant[.idempotencyKey] = "grant-retry-1"
                for body in [#"{"count": 2, "expires_at": "2026-11-29T00:00:00Z", "reason": "Ill"}"#,
                             #"{"count": 2, "expires_at": "2026-11-29T00:00:00Z", "reason": "Ill"}"#,
                             #"{"count": 3, "expires_at": "2026-11-29T00:00:00Z", "reason": "Ill"}"#] {
                    _ = try await call(.post, grants, "/v1/students/S1002/attempt-grants", keyedGrant, body: ByteBuffer(string: body))
                }
                let enrolment = "/v1/students/{id}/enrolment"
                for (uri, headers, body) in [
                    ("/v1/students/S1008/enrolment", backOfficeJSON, #"{"state": "paused", "reason": "Travelling"}"#),
                    ("/v1/students/S1008/enrolment", backOfficeJSON, #"{"state": "paused", "reason": "Travelling"}"#),
                    ("/v1/students/S1008/enrolment", backOfficeJSON, #"{"state": "away", "reason": "Travelling"}"#),
                    ("/v1/students/S1008/enrolment", backOfficeJSON, #"{"reason": "Travelling"}"#),
                    ("/v1/students/S9999/enrolment", backOfficeJSON, #"{"state": "paused", "reason": "Travelling"}"#),
                    ("/v1/students/S1008/enrolment", backOfficeStudentJSON, "{}"),
                    ("/v1/students/S1008/enrolment", backOfficeText, "x"),
                    ("/v1/students/S1008/enrolment", [.contentType: "application/json"], "{}"),
                ] {
                    _ = try await call(.put, enrolment, uri, headers, body: ByteBuffer(string: body))
                }
                let cover = "/v1/coaches/{id}/cover"
                for (uri, headers, body) in [
                    ("/v1/coaches/C03/cover", backOfficeJSON, #"{"covering_coach_id": "C02", "until": "2026-11-25T00:00:00Z", "reason": "Leave"}"#),
                    ("/v1/coaches/C03/cover", backOfficeJSON, #"{"covering_coach_id": "C02", "until": "2026-11-01T00:00:00Z", "reason": "Back"}"#),
                    ("/v1/coaches/C03/cover", backOfficeJSON, #"{"covering_coach_id": "C02", "until": "2026-11-01T00:00:00Z", "reason": "Back"}"#),
                    ("/v1/coaches/C03/cover", backOfficeJSON, #"{"covering_coach_id": "C03", "until": "2026-11-25T00:00:00Z", "reason": "Leave"}"#),
                    ("/v1/coaches/C03/cover", backOfficeJSON, #"{"until": "2026-11-25T00:00:00Z", "reason": "Leave"}"#),
                    ("/v1/coaches/C99/cover", backOfficeJSON, #"{"covering_coach_id": "C02", "until": "2026-11-25T00:00:00Z", "reason": "Leave"}"#),
                    ("/v1/coaches/C03/cover", backOfficeStudentJSON, "{}"),
                    ("/v1/coaches/C03/cover", backOfficeText, "x"),
                    ("/v1/coaches/C03/cover", [.contentType: "application/json"], "{}"),
                ] {
                    _ = try await call(.post, cover, uri, headers, body: ByteBuffer(string: body))
                }
                let exportRoute = "/v1/students/{id}/export"
                _ = try await call(.get, exportRoute, "/v1/students/S1001/export", student)
                _ = try await call(.get, exportRoute, "/v1/students/S1001/export", try await auth(.coach, "C01"))
                _ = try await call(.get, exportRoute, "/v1/students/S1002/export", student)
                _ = try await call(.get, exportRoute, "/v1/students/S1001/export")
                let audit = "/v1/audit"
                let firstPage = try await call(.get, audit, "/v1/audit?limit=2", try await auth(.ops, "amina"))
                if let next = firstPage.json?["next"] as? String { _ = try await call(.get, audit, next, try await auth(.ops, "amina")) }
                _ = try await call(.get, audit, "/v1/audit?student=S1001&since=2026-01-01T00:00:00Z", try await auth(.ops, "amina"))
                _ = try await call(.get, audit, "/v1/audit?cursor=nonsense", try await auth(.ops, "amina"))
                _ = try await call(.get, audit, "/v1/audit", try await auth(.coach, "C01"))
                _ = try await call(.get, audit, "/v1/audit")
            }

            // Annotations: written and spoken, each documented refusal, the correction's audio, the history, deleting.
            try await step {
                annotations = "/v1/submissions/{id}/annotations"
                let markJSON = try await auth(.coach, "C01", [.contentType: "application/json"])
                let validMark = ByteBuffer(string: #"{"at_seconds": 2, "surah": 104, "ayah": 1, "kind": "tajweed", "text": "The madd."}"#)
                let mark = try await call(.post, annotations, "/v1/submissions/\(id)/annotations", markJSON, body: validMark)
                #expect(mark.status == .created)
                markId = try #require(mark.json?["id"] as? String)
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations", markJSON,
                                   body: ByteBuffer(string: #"{"at_seconds": 2, "kind": "spelling", "text": "x"}"#))
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations", markJSON, body: ByteBuffer(string: #"{"at": 2}"#))
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations",
                                   try await auth(.coach, "C02", [.contentType: "application/json"]), body: validMark)
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations",
                                   try await auth(.student, "S1001", [.contentType: "application/json"]), body: validMark)
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations", try await auth(.coach, "C01", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "x"))
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations", [.contentType: "application/json"], body: validMark)
                let spokenMark = try await call(.post, annotations, "/v1/submissions/\(id)/annotations?at_seconds=3&kind=harakah",
                                                try await auth(.coach, "C01", ogg), body: opus)
                let spokenId = try #require(spokenMark.json?["id"] as? String)
                _ = try await call(.post, annotations, "/v1/submissions/\(id)/annotations?at_seconds=3&kind=harakah",
                                   try await auth(.coach, "C01", [.contentType: "audio/wav"]), body: try TestDaemon.fixture("digital_silence.wav"))
                for template in ["/v1/annotations/{id}/audio", "/v1/annotations/{id}/waveform"] {
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: spokenId), student)
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: markId), student)
                    _ = try await call(.get, template, template.replacingOccurrences(of: "{id}", with: "ann_none"), student)
                }
                // The correction recorded again (PUT) and taken away (DELETE), each documented refusal.
                let correction = "/v1/annotations/{id}/audio"
                let spokenPath = "/v1/annotations/\(spokenId)/audio"
                _ = try await call(.put, correction, spokenPath, try await auth(.coach, "C01", ogg), body: opus)
                _ = try await call(.put, correction, spokenPath, try await auth(.coach, "C01", [.contentType: "audio/wav"]),
                                   body: try TestDaemon.fixture("digital_silence.wav"))
                _ = try await call(.put, correction, spokenPath, markJSON, body: ByteBuffer(string: "{}"))
                _ = try await call(.put, correction, spokenPath, try await auth(.coach, "C02", ogg), body: opus)
                _ = try await call(.put, correction, spokenPath, try await auth(.student, "S1001", ogg), body: opus)
                _ = try await call(.put, correction, spokenPath, ogg, body: opus)
                _ = try await call(.delete, correction, spokenPath, try await auth(.coach, "C01"))
                _ = try await call(.delete, correction, spokenPath, try await auth(.coach, "C02"))
                _ = try await call(.delete, correction, spokenPath, student)
                _ = try await call(.delete, correction, spokenPath)
                _ = try await call(.put, correction, spokenPath, try await auth(.coach, "C01", ogg), body: opus)
                // Moved and changed (PATCH), each documented refusal.
                let change = "/v1/annotations/{id}"
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", markJSON, body: ByteBuffer(string: #"{"at_seconds": 2.1, "kind": "harakah"}"#))
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", markJSON, body: ByteBuffer(string: #"{"colour": "red"}"#))
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", markJSON, body: ByteBuffer(string: #"{"surah": 104}"#))
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", try await auth(.coach, "C02", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"kind": "other"}"#))
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", try await auth(.student, "S1001", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"kind": "other"}"#))
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", try await auth(.coach, "C01", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "x"))
                _ = try await call(.patch, change, "/v1/annotations/\(markId)", [.contentType: "application/json"], body: ByteBuffer(string: #"{"kind": "other"}"#))
                let history = "/v1/students/{id}/annotations"
                _ = try await call(.get, history, "/v1/students/S1001/annotations?surah=104&ayah=1", student)
                _ = try await call(.get, history, "/v1/students/S1001/annotations", try await auth(.coach, "C01"))
                _ = try await call(.get, history, "/v1/students/S1001/annotations?ayah=1", student)
                _ = try await call(.get, history, "/v1/students/S1001/annotations", try await auth(.coach, "C02"))
                _ = try await call(.get, history, "/v1/students/S1001/annotations")
            }
            // The student's feed now holds annotation_added (the reply was out): its payload as documented.
            try await step {
                let announced = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1001/events", student)
                #expect((announced.json?["events"] as? [[String: Any]])?.contains { $0["type"] as? String == "annotation_added" } == true)
                let oneMark = "/v1/annotations/{id}"
                _ = try await call(.delete, oneMark, "/v1/annotations/\(markId)", try await auth(.coach, "C02"))
                _ = try await call(.delete, oneMark, "/v1/annotations/\(markId)", student)
                _ = try await call(.delete, oneMark, "/v1/annotations/\(markId)", try await auth(.coach, "C01"))
                _ = try await call(.delete, oneMark, "/v1/annotations/\(markId)")
            }

            // Second chances: withdraw (200, 403, 404, 409), the replayed key (410), a malformed Recorded-At (400).
            try await step {
                var s1002 = try await auth(.student, "S1002", ogg)
                s1002[.idempotencyKey] = "contract-withdraw"
                s1002[.recordedAt] = "2026-11-22T14:00:00Z"
                let taken = try await call(.post, upload, "/v1/students/S1002/weeks/12/submissions", s1002, body: opus)
                let takenId = try #require(taken.json?["id"] as? String)
                one = "/v1/submissions/{id}"
                _ = try await call(.delete, one, "/v1/submissions/\(takenId)", try await auth(.coach, "C02"))
                _ = try await call(.delete, one, "/v1/submissions/sub_none", try await auth(.student, "S1002"))
                _ = try await call(.delete, one, "/v1/submissions/\(takenId)", try await auth(.student, "S1002"))
                _ = try await call(.post, upload, "/v1/students/S1002/weeks/12/submissions", s1002, body: opus)
                _ = try await call(.delete, one, "/v1/submissions/\(id)", student)
                var badDate = try await auth(.student, "S1002", ogg)
                badDate[.recordedAt] = "yesterday"
                _ = try await call(.post, upload, "/v1/students/S1002/weeks/12/submissions", badDate, body: opus)
            }

            // Resumable uploads: tus (discovery, creation, offset, parts, a stale offset, a bad
            // checksum, progress, the outcome, termination) and the IETF draft's offset and completing append.
            try await step {
                creation = "/v1/students/{id}/weeks/{slot}/uploads"
                resumable = "/v1/uploads/{id}"
                let tus: HTTPFields = [.init("Tus-Resumable")!: "1.0.0"]
                _ = try await call(.options, creation, "/v1/students/S1006/weeks/12/uploads")
                _ = try await call(.options, resumable, "/v1/uploads/upl_any")
                opusBytes = Data(buffer: opus)
                let made = try await call(.post, creation, "/v1/students/S1006/weeks/12/uploads",
                                          try await auth(.student, "S1006", tus + [.init("Upload-Length")!: "\(opusBytes.count)"]), body: ByteBuffer())
                let madePath = try #require(made.headers[.location])
                let madeURI = "/v1/uploads/\(madePath.split(separator: "/").last ?? "")"
                _ = try await call(.post, creation, "/v1/students/S1006/weeks/12/uploads", try await auth(.student, "S1006"), body: ByteBuffer())
                _ = try await call(.post, creation, "/v1/students/S1006/weeks/14/uploads",
                                   try await auth(.student, "S1006", tus + [.init("Upload-Length")!: "10"]), body: ByteBuffer())
                _ = try await call(.head, resumable, madeURI, try await auth(.student, "S1006", tus))
                _ = try await call(.head, resumable, madeURI, try await auth(.student, "S1007", tus))
                let part = tus + [.contentType: "application/offset+octet-stream"]
                _ = try await call(.patch, resumable, madeURI, try await auth(.student, "S1006", part + [.init("Upload-Offset")!: "0"]),
                                   body: ByteBuffer(bytes: opusBytes.prefix(20_000)))
                _ = try await call(.patch, resumable, madeURI, try await auth(.student, "S1006", part + [.init("Upload-Offset")!: "0"]),
                                   body: ByteBuffer(bytes: opusBytes.prefix(20_000)))
                _ = try await call(.patch, resumable, madeURI, try await auth(.student, "S1006", part + [
                    .init("Upload-Offset")!: "20000", .init("Upload-Checksum")!: "sha1 AAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                ]), body: ByteBuffer(bytes: opusBytes.dropFirst(20_000)))
                _ = try await call(.get, resumable, madeURI, try await auth(.student, "S1006"))
                _ = try await call(.patch, resumable, madeURI, try await auth(.student, "S1006", part + [.init("Upload-Offset")!: "20000"]),
                                   body: ByteBuffer(bytes: opusBytes.dropFirst(20_000)))
                _ = try await call(.get, resumable, madeURI, try await auth(.student, "S1006"))
                let dropped = try await client.execute(uri: "/v1/students/S1006/weeks/12/uploads", method: .post,
                                                       headers: try await auth(.student, "S1006", tus + [.init("Upload-Length")!: "100"]), body: ByteBuffer())
                let droppedURI = try #require(dropped.headers[.location])
                _ = try await call(.delete, resumable, droppedURI, try await auth(.student, "S1006", tus))
                _ = try await call(.delete, resumable, madeURI, try await auth(.student, "S1006", tus))
                _ = try await call(.delete, resumable, "/v1/uploads/bad.id", try await auth(.student, "S1006", tus))
                _ = try await call(.get, resumable, "/v1/uploads/bad.id", try await auth(.student, "S1006"))
            }
            // The draft: a creation that says it is incomplete (not checked here: its 201 has no body), then HEAD and the completing PATCH.
            try await step {
                let draft: HTTPFields = [.init("Upload-Draft-Interop-Version")!: "7"]
                let started = try await client.execute(uri: "/v1/students/S1006/weeks/12/submissions", method: .post,
                                                       headers: try await auth(.student, "S1006", draft + [.init("Upload-Complete")!: "?0", .contentType: "audio/ogg"]),
                                                       body: ByteBuffer(bytes: opusBytes.prefix(5_000)))
                let startedURI = try #require(started.headers[.location])
                _ = try await call(.head, resumable, startedURI, try await auth(.student, "S1006", draft))
                _ = try await call(.patch, resumable, startedURI, try await auth(.student, "S1006", draft + [
                    .init("Upload-Complete")!: "?1", .init("Upload-Offset")!: "5000", .contentType: "application/partial-upload",
                ]), body: ByteBuffer(bytes: opusBytes.dropFirst(5_000)))
            }

            // Semesters and placement.
            try await step {
                _ = try await call(.get, "/v1/students/{id}/timeline", "/v1/students/S1001/timeline?semester=fall-2026", student)
                _ = try await call(.get, "/v1/students/{id}/timeline", "/v1/students/S1001/timeline?semester=spring-2027", student)
                _ = try await call(.get, "/v1/students/{id}/timeline", "/v1/students/S1011/timeline", try await auth(.student, "S1011"))
            }
            // An empty feed: next_cursor is the position sent (never null, as documented): none was, so the feed's start, sealed.
            try await step {
                let empty = try await call(.get, "/v1/students/{id}/events", "/v1/students/S1011/events", try await auth(.student, "S1011"))
                #expect(empty.json?["next_cursor"] as? String == EventCursor(key: daemon.api.authority.cursorKey, recipient: .student("S1011")).text(for: 0))
                placement = "/v1/students/{id}/placement"
                opsJSON = try await auth(.ops, "ops", [.contentType: "application/json"])
            }
            // S1001 has week 12's recording: another level is already_placed, the same placement a no-op.
            try await step {
                let alreadyPlaced = try await call(.put, placement, "/v1/students/S1001/placement", opsJSON,
                                                   body: ByteBuffer(string: #"{"level_id": "L2", "coach_id": "C01"}"#))
                #expect(alreadyPlaced.status == .conflict && alreadyPlaced.json?["code"] as? String == "already_placed")
                _ = try await call(.put, placement, "/v1/students/S1001/placement", opsJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C01"}"#))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", opsJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02", "decided_by": "C01"}"#))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", opsJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02", "decided_by": "C03"}"#))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", opsJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L9", "coach_id": "C02"}"#))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", opsJSON, body: ByteBuffer(string: #"{"level": 1}"#))
                _ = try await call(.put, placement, "/v1/students/S9999/placement", opsJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02"}"#))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", try await auth(.ops, "ops", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "L1"))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", try await auth(.coach, "C01", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02"}"#))
                _ = try await call(.put, placement, "/v1/students/S1011/placement", [.contentType: "application/json"],
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02"}"#))
            }
            // Placing coaches: C02 does not place (403 for any id), C01 in their own name only.
            try await step {
                _ = try await call(.put, placement, "/v1/students/S1012/placement", try await auth(.coach, "C02", [.contentType: "application/json"]),
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02"}"#))
                let coachJSON = try await auth(.coach, "C01", [.contentType: "application/json"])
                _ = try await call(.put, placement, "/v1/students/S1012/placement", coachJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02", "decided_by": "C03"}"#))
                let byCoach = try await call(.put, placement, "/v1/students/S1012/placement", coachJSON,
                                             body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C02", "semester_id": "spring-2027"}"#))
                #expect(byCoach.status == .ok && byCoach.json?["placed_by"] as? String == "coach:C01")
                _ = try await call(.put, placement, "/v1/students/S1004/placement", coachJSON,
                                   body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C01"}"#))
            }

            // The coach's queue, status, operations.
            try await step {
                _ = try await call(.get, "/v1/coaches/{id}/queue", "/v1/coaches/C01/queue", try await auth(.coach, "C01"))
                let coachFeed = try await call(.get, "/v1/coaches/{id}/events", "/v1/coaches/C01/events", try await auth(.coach, "C01"))
                #expect((coachFeed.json?["events"] as? [[String: Any]])?.contains { $0["type"] as? String == "submission_ready_for_review" } == true)
                _ = try await call(.get, "/v1/coaches/{id}/events", "/v1/coaches/C01/events?before=999999999999999999&limit=5", try await auth(.ops, "ops"))
                _ = try await call(.get, "/v1/coaches/{id}/events", "/v1/coaches/C02/events", try await auth(.coach, "C01"))
                _ = try await call(.get, "/v1/coaches/{id}/events", "/v1/coaches/C01/events?after=x", try await auth(.coach, "C01"))
                _ = try await call(.get, "/v1/coaches/{id}/events", "/v1/coaches/C01/events", student)
                _ = try await call(.get, "/v1/coaches/{id}/events", "/v1/coaches/C01/events")
                _ = try await call(.get, "/v1/coaches/{id}/queue", "/v1/coaches/C01/queue", student)
                _ = try await call(.get, "/v1/coaches/{id}/queue", "/v1/coaches/C99/queue", try await auth(.ops, "ops"))
                _ = try await call(.get, "/v1/status", "/v1/status", try await auth(.ops, "ops"))
                _ = try await call(.get, "/v1/status", "/v1/status", student)
                _ = try await call(.get, "/v1/status", "/v1/status")
                for path in ["/healthz", "/readyz", "/metrics", "/openapi.yaml"] {
                    _ = try await call(.get, path, path)
                }
            }

            // The desk: a login link, its page and exchange, the session, sign-out, the page and its files.
            try await step {
                let links = "/v1/coaches/{id}/login-links"
                let issued = try await call(.post, links, "/v1/coaches/C01/login-links", try await auth(.ops, "ops"))
                _ = try await call(.post, links, "/v1/coaches/C01/login-links", try await auth(.coach, "C01"))
                _ = try await call(.post, links, "/v1/coaches/C99/login-links", try await auth(.ops, "ops"))
                _ = try await call(.post, links, "/v1/coaches/C01/login-links")
                _ = try await call(.post, links, "/v1/coaches/bad.id/login-links", try await auth(.ops, "ops"))
                let token = String(try #require((issued.json?["url"] as? String)?.split(separator: "=").last))
                _ = try await call(.get, "/desk/login", "/desk/login?token=\(token)")
                _ = try await call(.get, "/desk/login", "/desk/login?token=short")
                let page = try await DeskLoginPage.open(client, token: token)
                _ = try await call(.post, "/desk/login", "/desk/login", [.contentType: "application/x-www-form-urlencoded"],
                                   body: ByteBuffer(string: "token=\(token)"))
                let signedIn = try await call(.post, "/desk/login", "/desk/login", page.headers, body: page.form(token))
                _ = try await call(.post, "/desk/login", "/desk/login", page.headers, body: page.form(token))
                let cookie = "tilawa_desk=" + (try #require(DeskLoginPage.cookie("tilawa_desk", in: signedIn)))
                let session = try await call(.get, "/desk/session", "/desk/session", [.cookie: cookie])
                _ = try await call(.get, "/desk/session", "/desk/session")
                _ = try await call(.get, "/desk", "/desk/")
                // No provider configured here: nothing offered, the provider's steps 404.
                _ = try await call(.get, "/desk/sign-in", "/desk/sign-in")
                // Asking for a new link (desk.link_request is on here): asked, and a body that is not {"who": …}.
                _ = try await call(.post, "/desk/link-request", "/desk/link-request", [.contentType: "application/json"],
                                   body: ByteBuffer(string: #"{"who": "C01"}"#))
                _ = try await call(.post, "/desk/link-request", "/desk/link-request", [.contentType: "application/json"],
                                   body: ByteBuffer(string: "{}"))
                _ = try await call(.get, "/desk/oidc/start", "/desk/oidc/start")
                _ = try await call(.get, "/desk/oidc/callback", "/desk/oidc/callback?code=a&state=b")
                let script = try await call(.get, "/desk/assets/{name}", "/desk/assets/desk.js")
                _ = try await call(.get, "/desk/assets/{name}", "/desk/assets/desk.js", [.ifNoneMatch: script.headers[.eTag] ?? "*"])
                _ = try await call(.get, "/desk/assets/{name}", "/desk/assets/nothing.js")
                _ = try await call(.post, "/desk/logout", "/desk/logout", [.cookie: cookie])
                _ = try await call(.post, "/desk/logout", "/desk/logout",
                                   [.cookie: cookie, .csrfToken: session.json?["csrf_token"] as? String ?? ""])
            }
            // Erasure: S1012 (spring, nothing recorded), refused while enrolled, then forced; each documented refusal.
            try await step {
                let erasure = "/v1/students/{id}/erasure"
                for (uri, headers, body) in [
                    ("/v1/students/S1012/erasure", backOfficeJSON, #"{"reason": "Asked"}"#),
                    ("/v1/students/S1012/erasure", backOfficeJSON, #"{"reason": "Asked", "force": true}"#),
                    ("/v1/students/S9999/erasure", backOfficeJSON, #"{"reason": "Asked"}"#),
                    ("/v1/students/S1012/erasure", backOfficeJSON, #"{"force": true}"#),
                    ("/v1/students/S1012/erasure", backOfficeJSON, #"{"reason": "Asked", "force": "yes"}"#),
                    ("/v1/students/S1012/erasure", backOfficeStudentJSON, "{}"),
                    ("/v1/students/S1012/erasure", backOfficeText, "x"),
                    ("/v1/students/S1012/erasure", [.contentType: "application/json"], "{}"),
                ] {
                    _ = try await call(.post, erasure, uri, headers, body: ByteBuffer(string: body))
                }
            }
            // Moving the reply: to S1003's recording, and each documented refusal.
            try await step {
                let move = "/v1/feedback/{id}/move"
                let other = try await client.execute(uri: "/v1/students/S1003/weeks/12/submissions", method: .post,
                                                     headers: try await auth(.student, "S1003", [.contentType: "audio/ogg"]),
                                                     body: try TestDaemon.fixture("speech.opus"))
                let otherId = other.json?["id"] as? String ?? "sub_none"
                for (uri, headers, body) in [
                    ("/v1/feedback/\(feedbackId)/move", backOfficeJSON, "{\"submission_id\": \"\(otherId)\", \"reason\": \"Misfiled\"}"),
                    ("/v1/feedback/\(feedbackId)/move", backOfficeJSON, "{\"submission_id\": \"\(otherId)\", \"reason\": \"Again\"}"),
                    ("/v1/feedback/\(feedbackId)/move", backOfficeJSON, "{\"submission_id\": \"\(otherId)\"}"),
                    ("/v1/feedback/\(feedbackId)/move", backOfficeJSON, #"{"submission": "x", "reason": "x"}"#),
                    ("/v1/feedback/fb_none/move", backOfficeJSON, "{\"submission_id\": \"\(otherId)\", \"reason\": \"Misfiled\"}"),
                    ("/v1/feedback/\(feedbackId)/move", backOfficeStudentJSON, "{}"),
                    ("/v1/feedback/\(feedbackId)/move", backOfficeText, "x"),
                    ("/v1/feedback/\(feedbackId)/move", [.contentType: "application/json"], "{}"),
                ] {
                    _ = try await call(.post, move, uri, headers, body: ByteBuffer(string: body))
                }
            }
            // Sign-out everywhere: S1009 and C03 (used nowhere else here) themselves, then ops with a reason; each documented refusal.
            try await step {
                for (owner, id, role, other) in [("students", "S1009", Role.student, "S9999"), ("coaches", "C03", Role.coach, "C99")] {
                    let revoke = "/v1/\(owner)/{id}/sessions/revoke", uri = "/v1/\(owner)/\(id)/sessions/revoke"
                    let own = try await auth(role, id)
                    _ = try await call(.post, revoke, uri, own)
                    _ = try await call(.post, revoke, uri, own)
                    _ = try await call(.post, revoke, uri, backOfficeJSON, body: ByteBuffer(string: #"{"reason": "Lost phone"}"#))
                    _ = try await call(.post, revoke, uri, backOfficeJSON, body: ByteBuffer(string: "{}"))
                    _ = try await call(.post, revoke, uri, backOfficeJSON, body: ByteBuffer(string: #"{"reason": "x", "force": true}"#))
                    _ = try await call(.post, revoke, uri, backOfficeText, body: ByteBuffer(string: "x"))
                    _ = try await call(.post, revoke, "/v1/\(owner)/\(other)/sessions/revoke", backOfficeJSON, body: ByteBuffer(string: #"{"reason": "x"}"#))
                    _ = try await call(.post, revoke, uri, try await auth(.student, "S1001"))
                    _ = try await call(.post, revoke, uri)
                }
            }
            // SCIM (RFC 7644): every operation with the SCIM token, its successes and SCIM errors.
            try await step {
                let scim: HTTPFields = [.authorization: "Bearer \(SCIMRouteTests.token)", .contentType: "application/scim+json"]
                let users = "/scim/v2/Users", user = "/scim/v2/Users/{id}"
                for (template, uri) in [("/scim/v2/ServiceProviderConfig", "/scim/v2/ServiceProviderConfig"), ("/scim/v2/ResourceTypes", "/scim/v2/ResourceTypes"),
                                        ("/scim/v2/ResourceTypes/{id}", "/scim/v2/ResourceTypes/User"), ("/scim/v2/ResourceTypes/{id}", "/scim/v2/ResourceTypes/Group"),
                                        ("/scim/v2/Schemas", "/scim/v2/Schemas"), ("/scim/v2/Schemas/{id}", "/scim/v2/Schemas/\(SCIMRouteTests.tilawa)"),
                                        ("/scim/v2/Schemas/{id}", "/scim/v2/Schemas/urn:example:none")] {
                    _ = try await call(.get, template, uri, scim)
                }
                let jwt = try await daemon.token(.ops, "ops")
                _ = try await call(.get, "/scim/v2/ServiceProviderConfig", "/scim/v2/ServiceProviderConfig", [.authorization: "Bearer \(jwt)"])
                _ = try await call(.post, "/scim/v2/.search", "/scim/v2/.search", scim, body: ByteBuffer(string: "{}"))
                let body = #"{"userName": "idp|contract", "name": {"givenName": "Con", "familyName": "Tract"}, "emails": [{"value": "c@example.org", "type": "work", "primary": true}], "active": true}"#
                let made = try await call(.post, users, users, scim, body: ByteBuffer(string: body))
                #expect(made.status == .created, "\(String(buffer: made.body))")
                let scimId = made.json?["id"] as? String ?? "P100001"
                _ = try await call(.post, users, users, scim, body: ByteBuffer(string: body))
                _ = try await call(.post, users, users, scim, body: ByteBuffer(string: #"{"displayName": "no userName"}"#))
                _ = try await call(.post, users, users, [.contentType: "application/scim+json"], body: ByteBuffer(string: body))
                _ = try await call(.get, users, "/scim/v2/Users?filter=userName%20eq%20%22idp%7Ccontract%22&startIndex=1&count=10", scim)
                _ = try await call(.get, users, "/scim/v2/Users?filter=displayName%20co%20%22x%22", scim)
                _ = try await call(.get, user, "/scim/v2/Users/\(scimId)", scim)
                _ = try await call(.get, user, "/scim/v2/Users/\(scimId)", scim + [.ifNoneMatch: #"W/"1""#])
                _ = try await call(.get, user, "/scim/v2/Users/P999999", scim)
                let replacement = #"{"userName": "idp|contract", "displayName": "Con Tract", "active": true}"#
                _ = try await call(.put, user, "/scim/v2/Users/\(scimId)", scim + [.ifMatch: #"W/"1""#], body: ByteBuffer(string: replacement))
                _ = try await call(.put, user, "/scim/v2/Users/\(scimId)", scim + [.ifMatch: #"W/"1""#], body: ByteBuffer(string: replacement))
                let deactivate = #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "value": {"active": false}}]}"#
                _ = try await call(.patch, user, "/scim/v2/Users/\(scimId)", scim, body: ByteBuffer(string: deactivate))
                _ = try await call(.patch, user, "/scim/v2/Users/\(scimId)", scim,
                                   body: ByteBuffer(string: #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "emails[", "value": 1}]}"#))
                _ = try await call(.patch, user, "/scim/v2/Users/P999999", scim, body: ByteBuffer(string: deactivate))
                _ = try await call(.delete, user, "/scim/v2/Users/\(scimId)", scim + [.ifMatch: #"W/"9""#])
                _ = try await call(.delete, user, "/scim/v2/Users/\(scimId)", scim)
                _ = try await call(.delete, user, "/scim/v2/Users/\(scimId)", scim)
            }
            // Consent and erasure requests: S1010 (used nowhere else here) themself, each documented answer, and an
            // upload refused erasure_pending while the request stands.
            try await step {
                let consent = "/v1/students/{id}/consent", erasureRequest = "/v1/students/{id}/erasure-request"
                let own = try await auth(.student, "S1010")
                let ownJSON = try await auth(.student, "S1010", [.contentType: "application/json"])
                let given = ByteBuffer(string: #"{"version": "2026-09", "given_by": "student"}"#)
                _ = try await call(.get, consent, "/v1/students/S1010/consent", own)
                _ = try await call(.put, consent, "/v1/students/S1010/consent", ownJSON, body: given)
                _ = try await call(.put, consent, "/v1/students/S1010/consent", ownJSON, body: given)
                _ = try await call(.put, consent, "/v1/students/S1010/consent", ownJSON, body: ByteBuffer(string: #"{"version": "2026-09", "given_by": "parent"}"#))
                _ = try await call(.put, consent, "/v1/students/S1010/consent", ownJSON, body: ByteBuffer(string: #"{"version": "2026-09", "given_by": "guardian"}"#))
                _ = try await call(.put, consent, "/v1/students/S1010/consent", try await auth(.student, "S1010", [.contentType: "text/plain"]),
                                   body: ByteBuffer(string: "yes"))
                _ = try await call(.put, consent, "/v1/students/S9999/consent", try await auth(.ops, "ops", [.contentType: "application/json"]), body: given)
                _ = try await call(.get, consent, "/v1/students/S1010/consent", own)
                _ = try await call(.get, consent, "/v1/students/S1010/consent", try await auth(.coach, "C03"))
                _ = try await call(.get, consent, "/v1/students/S1010/consent")
                _ = try await call(.delete, consent, "/v1/students/S1010/consent", own)
                _ = try await call(.delete, consent, "/v1/students/S1010/consent", own)
                _ = try await call(.post, erasureRequest, "/v1/students/S1010/erasure-request", own)
                _ = try await call(.post, erasureRequest, "/v1/students/S1010/erasure-request", own)
                _ = try await call(.post, upload, "/v1/students/S1010/weeks/3/submissions", try await auth(.student, "S1010", ogg), body: opus)
                _ = try await call(.get, erasureRequest, "/v1/students/S1010/erasure-request", own)
                _ = try await call(.delete, erasureRequest, "/v1/students/S1010/erasure-request", own)
                _ = try await call(.get, erasureRequest, "/v1/students/S1010/erasure-request", own)
                _ = try await call(.delete, erasureRequest, "/v1/students/S1010/erasure-request", own)
                _ = try await call(.post, erasureRequest, "/v1/students/S1010/erasure-request", try await auth(.coach, "C03"))
                _ = try await call(.post, erasureRequest, "/v1/students/S9999/erasure-request", try await auth(.ops, "ops"))
                _ = try await call(.post, erasureRequest, "/v1/students/bad.id/erasure-request", try await auth(.ops, "ops"))
                _ = try await call(.post, erasureRequest, "/v1/students/S1010/erasure-request")
            }
            // Last, as they close the test client's one connection: a JSON body and an upload over their limits.
            try await step {
                _ = try await call(.patch, "/v1/feedback/{id}", "/v1/feedback/\(feedbackId)", json,
                                   body: ByteBuffer(string: "{\"notes\": \"" + String(repeating: "a", count: 70_000) + "\"}"))
            }
        }

        let result = try await validate(log.text, requireEveryOperation: true)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")

        // The same check fails a real response that drifted: the 201 without its analysis.
        let original = try #require(submissionBody.withLock { $0 })
        var object = try #require(try JSONSerialization.jsonObject(with: Data(original.utf8)) as? [String: Any])
        object["analysis"] = nil
        let drifted = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let entry: [String: Any] = ["method": "POST", "path": "/v1/students/{id}/weeks/{slot}/submissions", "status": 201,
                                    "content_type": "application/json", "headers": ["Location": "/v1/submissions/x"], "body": drifted]
        let line = String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self)
        let refused = try await validate(line + "\n", requireEveryOperation: false)
        #expect(refused.status == 1 && refused.stdout.contains("analysis"), "\(refused.stdout)")
    }
}

/// Both sets of fields, the right one's winning where both name a field.
private func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
    var fields = lhs
    for field in rhs { fields[field.name] = field.value }
    return fields
}
