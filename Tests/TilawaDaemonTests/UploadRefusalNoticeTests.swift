import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// DESIGN §14: "A resumable upload that completes and is refused sends `submission_refused`
/// with the reason and what to do" — once per upload, and not when the refusal reached the
/// client as the answer to its completing request.
@Suite("submission_refused: a resumable upload refused where the student may not see it")
struct UploadRefusalNoticeTests {
    func refusals(_ daemon: TestDaemon, _ student: String) throws -> [EventPayload] {
        try daemon.runtime.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "studentId = ? AND type = 'submission_refused'", [student], orderBy: "seq")
        }.map { try JSONDecoder.api.decode(EventPayload.self, from: $0.payload) }
    }

    @Test("tus: the completion answers 204, so the refusal is told once, with its reason; asking the outcome tells nothing more")
    func tus() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("digital_silence.wav"))
        try await daemon.application().live { client in
            let tus = TusRouteTests()
            let created = try await tus.create(daemon, client, length: file.count)
            let location = try #require(created.headers[.location])
            // The completion is judged before it is answered: without the live client's 20-s limit.
            let done = try await daemon.request(
                port: client.port, method: .patch, location,
                headers: try await tus.tusHeaders(daemon, "S1001", [.contentType: "application/offset+octet-stream", .testUploadOffset: "0"]), body: file)
            #expect(done.status == .noContent)
            let outcome = try await client.execute(uri: location, method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(outcome.status == .unprocessableContent)
            let code = try #require(outcome.json?["code"] as? String)
            let detail = try #require(outcome.json?["detail"] as? String)
            let events = try refusals(daemon, "S1001")
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event.messageKey == "submission_refused" && event.params?["code"] == .text(code))
            #expect(event.message.hasPrefix("Your recording for week 12") && event.message.hasSuffix(detail), "\(event.message)")
            #expect(event.push == true && event.week?.number == 12 && event.link == "quranflow://weeks/12")
            // Again: the same answer, no second event.
            _ = try await client.execute(uri: location, method: .get, headers: try await daemon.headers(.student, "S1001"))
            _ = try await tus.patch(daemon, client, location, offset: file.count, Data())
            #expect(try refusals(daemon, "S1001").count == 1)
        }
    }

    @Test("the draft protocol: a refusal answered to the waiting phone tells nothing; one whose phone is gone before the answer is told")
    func draft() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("digital_silence.wav"))
        try await daemon.application().live { client in
            // Judged while the phone waits: on a connection without the live client's 20-s limit.
            let answered = try await daemon.request(
                port: client.port, method: .post, "/v1/students/S1001/weeks/12/submissions",
                headers: try await daemon.headers(.student, "S1001", [.init("Upload-Draft-Interop-Version")!: "6", .init("Upload-Complete")!: "?1",
                                                                      .contentType: "audio/wav"]),
                body: file)
            #expect(answered.status == .unprocessableContent)
            // The answer was written: nothing is owed, and the minute tick tells nothing.
            #expect(await daemon.eventually {
                try daemon.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resumableUpload WHERE studentId = 'S1001' AND refusalOwedSince IS NULL AND refusalNotifiedAt IS NOT NULL")
                } == 1
            })
            #expect(try await daemon.runtime.database.recordOwedUploadRefusals(before: .distantFuture, now: daemon.clock.now) == 0)
            #expect(try refusals(daemon, "S1001").isEmpty, "the phone has the refusal in hand")

            // S1002's phone sends 14 minutes of silence whole and is gone (reset) while it is
            // judged: its answer is held until then, so the reset always comes first.
            let phoneGone = Mutex(false)
            daemon.api.testHooks.holdRefusalAnswers { _ in
                for _ in 0..<600 where !phoneGone.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(50)) }
            }
            let silence = Self.silentWAV(seconds: 840)
            let port = client.port
            let token = try await daemon.token(.student, "S1002")
            let phone = try RawHTTPConnection(port: port)
            try phone.send("POST /v1/students/S1002/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: audio/wav\r\nUpload-Draft-Interop-Version: 6\r\nUpload-Complete: ?1\r\nContent-Length: \(silence.count)\r\n\r\n")
            let interim = await phone.read(until: "\r\n\r\n")
            #expect(interim.hasPrefix("HTTP/1.1 104"))
            try phone.send(silence)
            func upload() throws -> ResumableUploadRecord? {
                try daemon.runtime.database.engine.read { db in try ResumableUploadRecord.fetchOne(db, where: "studentId = 'S1002'") }
            }
            #expect(await daemon.eventually { try upload()?.state != .receiving }, "every byte arrived")
            let phonePort = phone.localPort
            phone.reset()
            // Gone for the server too: its end has taken the reset in (a loaded box may process
            // it a moment after close returns, and a write before that would still succeed).
            #expect(await daemon.eventually { !RawHTTPConnection.isEstablished(localPort: port, remotePort: phonePort) })
            phoneGone.withLock { $0 = true }
            #expect(await daemon.eventually { try upload()?.state == .answered })
            #expect(try upload()?.answerStatus == 422)
            #expect(try refusals(daemon, "S1002").isEmpty, "owed, not yet told: the answer might still be on its way")
            // A minute later the tick tells what was never written, once.
            let row = try daemon.runtime.database.engine.read { db in
                try Row.fetchOne(db, sql: "SELECT refusalOwedSince, refusalNotifiedAt FROM resumableUpload WHERE studentId = 'S1002'")
            }
            #expect(try await daemon.runtime.database.recordOwedUploadRefusals(before: .distantFuture, now: daemon.clock.now) == 1,
                    "\(String(describing: row))")
            #expect(try await daemon.runtime.database.recordOwedUploadRefusals(before: .distantFuture, now: daemon.clock.now) == 0)
            let told = try refusals(daemon, "S1002")
            let code = try #require(answered.json?["code"] as? String)
            #expect(told.count == 1 && told.first?.params?["code"] == .text(code))
        }
    }

    /// A 16 kHz mono 16-bit WAV of digital silence.
    static func silentWAV(seconds: Int) -> Data {
        let samples = 16_000 * seconds
        var data = Data("RIFF".utf8)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(UInt32(36 + samples * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16)); append(UInt16(1)); append(UInt16(1)); append(UInt32(16_000)); append(UInt32(32_000)); append(UInt16(2)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(samples * 2))
        data.append(Data(count: samples * 2))
        return data
    }
}
