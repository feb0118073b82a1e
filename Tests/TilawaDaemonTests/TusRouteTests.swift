import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

extension HTTPField.Name {
    static let testTusResumable = Self("Tus-Resumable")!
    static let testUploadLength = Self("Upload-Length")!
    static let testUploadOffset = Self("Upload-Offset")!
    static let testUploadChecksum = Self("Upload-Checksum")!
    static let testUploadMetadata = Self("Upload-Metadata")!
}

@Suite("tus 1.0 uploads: creation, resumption, checksums, termination, limits")
struct TusRouteTests {
    static let creation = "/v1/students/S1001/weeks/12/uploads"

    func tusHeaders(_ daemon: TestDaemon, _ student: String = "S1001", _ extra: HTTPFields = [:]) async throws -> HTTPFields {
        var headers = try await daemon.headers(.student, student, [.testTusResumable: "1.0.0"])
        headers.append(contentsOf: extra)
        return headers
    }

    func create(_ daemon: TestDaemon, _ client: LiveClient, length: Int, student: String = "S1001",
                extra: HTTPFields = [:]) async throws -> LiveAnswer {
        var fields: HTTPFields = [.testUploadLength: "\(length)", .testUploadMetadata: "filename \(Data("take 1.wav".utf8).base64EncodedString()),filetype \(Data("audio/wav".utf8).base64EncodedString())"]
        for field in extra { fields[field.name] = field.value }
        // An empty body, not none: the test client would frame "none" as an empty chunked body.
        return try await client.execute(uri: "/v1/students/\(student)/weeks/12/uploads", method: .post,
                                        headers: try await tusHeaders(daemon, student, fields), body: ByteBuffer())
    }

    func patch(_ daemon: TestDaemon, _ client: LiveClient, _ location: String, offset: Int, _ bytes: Data,
               student: String = "S1001", extra: HTTPFields = [:]) async throws -> LiveAnswer {
        var fields: HTTPFields = [.contentType: "application/offset+octet-stream", .testUploadOffset: "\(offset)"]
        fields.append(contentsOf: extra)
        return try await client.execute(uri: location, method: .patch, headers: try await tusHeaders(daemon, student, fields),
                                        body: ByteBuffer(bytes: bytes))
    }

    @Test("capabilities without a token; a whole upload in parts with sha1 and sha256 checksums; a bad checksum keeps nothing; the last part links to the submission")
    func wholeUpload() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech_mono_s16_48k.wav"))
        try await daemon.application().live { client in
            let options = try await client.execute(uri: "/v1/uploads/upl_anything", method: .options)
            #expect(options.status == .noContent)
            #expect(options.headers[.init("Tus-Version")!] == "1.0.0")
            #expect(options.headers[.init("Tus-Extension")!] == "creation,creation-with-upload,termination,expiration,checksum")
            #expect(options.headers[.init("Tus-Checksum-Algorithm")!] == "sha1,sha256")
            #expect(options.headers[.init("Tus-Max-Size")!] == "\(daemon.runtime.configuration.http.maxUploadBytes)")

            let created = try await create(daemon, client, length: file.count)
            #expect(created.status == .created)
            let location = try #require(created.headers[.location])
            #expect(location.hasPrefix("/v1/uploads/upl_"))
            #expect(created.headers[.init("Upload-Expires")!] == "Mon, 23 Nov 2026 15:00:00 GMT")

            let first = file.prefix(400_000)
            let sha1 = Data(Insecure.SHA1.hash(data: first)).base64EncodedString()
            let one = try await patch(daemon, client, location, offset: 0, Data(first), extra: [.testUploadChecksum: "sha1 \(sha1)"])
            #expect(one.status == .noContent && one.headers[.testUploadOffset] == "400000")

            // A part whose checksum does not match: 460, and the offset stays where it was.
            let second = file[400_000..<800_000]
            let wrong = try await patch(daemon, client, location, offset: 400_000, Data(second),
                                        extra: [.testUploadChecksum: "sha256 \(Data(SHA256.hash(data: Data("other".utf8))).base64EncodedString())"])
            #expect(wrong.status.code == 460 && wrong.json?["code"] as? String == "checksum_mismatch")
            let head = try await client.execute(uri: location, method: .head, headers: try await tusHeaders(daemon))
            #expect(head.status == .ok && head.headers[.testUploadOffset] == "400000" && head.headers[.testUploadLength] == "\(file.count)")
            #expect(head.headers[.cacheControl] == "no-store")
            let id = String(location.dropFirst("/v1/uploads/".count))
            let size = try FileManager.default.attributesOfItem(atPath: daemon.runtime.stateDirectory.uploadStaging.path(for: id))[.size] as? Int
            #expect(size == 400_000)

            // The wrong offset: 409 with the real one.
            let stale = try await patch(daemon, client, location, offset: 0, Data(second))
            #expect(stale.status == .conflict && stale.headers[.testUploadOffset] == "400000")

            let right = try await patch(daemon, client, location, offset: 400_000, Data(second),
                                        extra: [.testUploadChecksum: "sha256 \(Data(SHA256.hash(data: second)).base64EncodedString())"])
            #expect(right.status == .noContent && right.headers[.testUploadOffset] == "800000")
            let progress = try await client.execute(uri: location, method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(progress.status == .accepted && progress.json?["offset"] as? Int == 800_000 && progress.json?["state"] as? String == "receiving")

            let last = try await patch(daemon, client, location, offset: 800_000, Data(file[800_000...]))
            #expect(last.status == .noContent && last.headers[.testUploadOffset] == "\(file.count)")
            let links = last.headers[values: .init("Link")!].joined(separator: ", ")
            #expect(links.contains("<\(location)>; rel=\"outcome\""))
            let outcome = try await client.execute(uri: location, method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(outcome.status == .ok)
            let submissionId = try #require(outcome.json?["id"] as? String)
            #expect(links.contains("</v1/submissions/\(submissionId)>; rel=\"submission\""))
            #expect(outcome.headers[.contentLocation] == "/v1/submissions/\(submissionId)")
            let submission = try #require(try await daemon.runtime.database.submission(id: submissionId))
            let original = try Data(contentsOf: daemon.runtime.stateDirectory.artifacts.appendingPathComponent(submission.originalPath ?? ""))
            #expect(original == file)
            #expect((outcome.json?["attempts"] as? [String: Any])?["used"] as? Int == 1)
            // The upload's bytes are gone from staging; its answer stays readable.
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: daemon.runtime.stateDirectory.uploadStaging.root.path)) ?? []).isEmpty)
            #expect(daemon.stagingFiles().isEmpty)

            // Nothing more can be appended.
            let after = try await patch(daemon, client, location, offset: file.count, Data("x".utf8))
            #expect(after.status == .conflict && after.json?["code"] as? String == "upload_complete")
        }
    }

    @Test("refusals before any byte: no Tus-Resumable 412, no length 400, too large 413, another student 404, a locked week 409, not audio 415")
    func refusals() async throws {
        let daemon = try await TestDaemon { $0.http.maxUploadBytes = 2_000_000 }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let bare = try await client.execute(uri: Self.creation, method: .post,
                                                headers: try await daemon.headers(.student, "S1001", [.testUploadLength: "10"]), body: ByteBuffer())
            #expect(bare.status == .preconditionFailed && bare.headers[.init("Tus-Version")!] == "1.0.0")
            let noLength = try await client.execute(uri: Self.creation, method: .post, headers: try await tusHeaders(daemon), body: ByteBuffer())
            #expect(noLength.status == .badRequest && noLength.json?["code"] as? String == "upload_length_required")
            let deferred = try await client.execute(uri: Self.creation, method: .post,
                                                    headers: try await tusHeaders(daemon, "S1001", [.init("Upload-Defer-Length")!: "1"]), body: ByteBuffer())
            #expect(deferred.status == .badRequest)
            let other = try await client.execute(uri: Self.creation, method: .post, headers: try await tusHeaders(daemon, "S1002", [.testUploadLength: "10"]),
                                                 body: ByteBuffer())
            #expect(other.status == .notFound)
            let locked = try await client.execute(uri: "/v1/students/S1001/weeks/14/uploads", method: .post,
                                                  headers: try await tusHeaders(daemon, "S1001", [.testUploadLength: "10"]), body: ByteBuffer())
            #expect(locked.status == .conflict && locked.json?["code"] as? String == "week_locked")
            let text = try await create(daemon, client, length: 10, extra: [.testUploadMetadata: "filetype \(Data("text/plain".utf8).base64EncodedString())"])
            #expect(text.status == .unsupportedMediaType)
            let metadata = try await create(daemon, client, length: 10, extra: [.testUploadMetadata: "filename !!!"])
            #expect(metadata.status == .badRequest && metadata.json?["code"] as? String == "invalid_upload_metadata")

            // Someone else's upload: 404 to them, for every verb.
            let mine = try await create(daemon, client, length: 100)
            let location = try #require(mine.headers[.location])
            for method in [HTTPRequest.Method.head, .patch, .delete, .get] {
                var headers = try await tusHeaders(daemon, "S1002", [.testUploadOffset: "0", .contentType: "application/offset+octet-stream"])
                if method == .get { headers[.testTusResumable] = nil }
                let answer = try await client.execute(uri: location, method: method, headers: headers,
                                                      body: method == .patch ? ByteBuffer(bytes: [1, 2]) : nil)
                #expect(answer.status == .notFound, "\(method)")
            }
            let coach = try await client.execute(uri: location, method: .head, headers: try await daemon.headers(.coach, "C01", [.testTusResumable: "1.0.0"]))
            #expect(coach.status == .notFound)
            let head = try await client.execute(uri: location, method: .head, headers: try await tusHeaders(daemon))
            #expect(head.headers[.testUploadOffset] == "0")
            // Last: a 413 closes the connection (as every 413 does).
            let large = try await create(daemon, client, length: 2_000_001)
            #expect(large.status == .contentTooLarge && large.json?["code"] as? String == "payload_too_large")
        }
    }

    @Test("creation with the first part, termination, an empty file judged at creation, and an Idempotency-Key that gives back the same upload")
    func creationVariants() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        try await daemon.application().live { client in
            var headers = try await tusHeaders(daemon, "S1001", [.testUploadLength: "\(file.count)", .contentType: "application/offset+octet-stream",
                                                                 .idempotencyKey: "phone-7"])
            let created = try await client.execute(uri: Self.creation, method: .post, headers: headers, body: ByteBuffer(bytes: file.prefix(10_000)))
            #expect(created.status == .created && created.headers[.testUploadOffset] == "10000")
            let location = try #require(created.headers[.location])
            headers[.contentType] = nil
            let again = try await client.execute(uri: Self.creation, method: .post, headers: headers)
            #expect(again.status == .created && again.headers[.location] == location && again.headers[.testUploadOffset] == "10000")
            #expect(again.headers[.idempotentReplayed] == "true")
            headers[.testUploadLength] = "\(file.count + 1)"
            let reused = try await client.execute(uri: Self.creation, method: .post, headers: headers)
            #expect(reused.status == .conflict && reused.json?["code"] as? String == "idempotency_key_reused")

            let deleted = try await client.execute(uri: location, method: .delete, headers: try await tusHeaders(daemon))
            #expect(deleted.status == .noContent)
            let gone = try await client.execute(uri: location, method: .head, headers: try await tusHeaders(daemon))
            #expect(gone.status == .notFound)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: daemon.runtime.stateDirectory.uploadStaging.root.path)) ?? []).isEmpty)

            let empty = try await create(daemon, client, length: 0)
            #expect(empty.status == .created && empty.headers[values: .init("Link")!].contains { $0.contains("rel=\"outcome\"") })
            let outcome = try await client.execute(uri: try #require(empty.headers[.location]), method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(outcome.status == .unprocessableContent && outcome.json?["code"] as? String == "empty")
            let attempts = try await daemon.runtime.database.attemptStatus(studentId: "S1001", policy: daemon.runtime.policy, now: daemon.clock.now)
            #expect(attempts?.used == 0)
        }
    }

    @Test("bounds: a fourth open upload of one student is 429, the staging budget is 507, an expired upload is 404 and its bytes are gone")
    func bounds() async throws {
        let daemon = try await TestDaemon { $0.uploads.stagingBudgetBytes = 5_000_000 }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            var locations: [String] = []
            for _ in 0..<3 {
                let created = try await create(daemon, client, length: 1_000_000)
                #expect(created.status == .created)
                locations.append(try #require(created.headers[.location]))
            }
            let fourth = try await create(daemon, client, length: 1_000_000)
            #expect(fourth.status == .tooManyRequests && fourth.json?["code"] as? String == "too_many_open_uploads")
            let budget = try await create(daemon, client, length: 2_500_000, student: "S1002")
            #expect(budget.status.code == 507 && budget.json?["code"] as? String == "upload_budget_full")
            let fits = try await create(daemon, client, length: 2_000_000, student: "S1002")
            #expect(fits.status == .created)

            _ = try await patch(daemon, client, locations[0], offset: 0, Data(repeating: 1, count: 1000))
            daemon.clock.advance(by: 24 * 3_600 + 1)
            let expired = try await client.execute(uri: locations[0], method: .head, headers: try await tusHeaders(daemon))
            #expect(expired.status == .notFound)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: daemon.runtime.stateDirectory.uploadStaging.root.path)) ?? []
            #expect(names.isEmpty, "\(names)")
            // Expired uploads count against nothing: a new one is taken.
            #expect(try await create(daemon, client, length: 1_000_000).status == .created)
        }
    }

    @Test("CORS: a preflight is answered without a token, and answers (refusals included) are readable from another origin")
    func cors() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let preflight = try await client.execute(uri: Self.creation, method: .options, headers: [
                .origin: "https://app.example", .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "tus-resumable, upload-length",
            ])
            #expect(preflight.status == .noContent && preflight.headers[.accessControlAllowOrigin] == "*")
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Upload-Length") == true)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("PATCH") == true)
            let refused = try await client.execute(uri: Self.creation, method: .post, headers: [.origin: "https://app.example"])
            #expect(refused.status == .unauthorized && refused.headers[.accessControlAllowOrigin] == "*")
            #expect(refused.headers[.accessControlExposeHeaders]?.contains("Upload-Offset") == true)
        }
    }

    @Test("a judgement a dead process left half-done is finished at start: once, whether or not its admission had committed")
    func interruptedCompletion() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        let locations = try await daemon.application().live { client in
            var locations: [String] = []
            for student in ["S1001", "S1002"] {
                let created = try await create(daemon, client, length: file.count, student: student)
                let location = try #require(created.headers[.location])
                _ = try await patch(daemon, client, location, offset: 0, Data(file.dropLast(1)), student: student)
                locations.append(location)
            }
            return locations
        }
        // As a process killed while judging leaves them: every byte in, the state `completing`;
        // the first also had its recording admitted (the file placed, the row committed).
        let ids = locations.map { String($0.dropFirst("/v1/uploads/".count)) }
        let staging = daemon.runtime.stateDirectory.uploadStaging
        for id in ids {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: staging.path(for: id)))
            try handle.seekToEnd()
            try handle.write(contentsOf: file.suffix(1))
            try handle.close()
        }
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE resumableUpload SET \"offset\" = \"length\", state = 'completing'")
        }
        let first = try #require(try await daemon.runtime.database.resumableUpload(id: ids[0]))
        let staged = try staging.stageForIntake(id: first.id, in: daemon.runtime.stateDirectory, fileExtension: "ogg")
        _ = try daemon.runtime.intake.submit(staged: staged, studentId: "S1001", slot: .week(12), origin: .http, fileExtension: "ogg",
                                             submissionId: first.submissionId)

        let uploads = ResumableUploads(api: daemon.api, receiver: UploadReceiver(
            stateDirectory: daemon.runtime.stateDirectory, maxBytes: 1 << 20, slots: UploadSlots(limit: 1, gauge: daemon.api.metrics.uploadsInFlight)),
            locks: daemon.api.uploadLocks)
        await uploads.finishInterruptedCompletions(logger: daemon.logger)
        for (id, student) in zip(ids, ["S1001", "S1002"]) {
            let upload = try #require(try await daemon.runtime.database.resumableUpload(id: id))
            #expect(upload.state == .answered && upload.answerStatus == 201)
            let count = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = ?", arguments: [student])
            }
            #expect(count == 1, "\(student): one submission")
            #expect(try await daemon.runtime.database.submission(id: upload.submissionId) != nil)
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: staging.root.path)) ?? []).isEmpty)
    }
}
