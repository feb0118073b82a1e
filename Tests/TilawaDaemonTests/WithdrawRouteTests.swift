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

@Suite("Second chances: withdrawing a recording, and recordings made offline")
struct WithdrawRouteTests {
    func upload(_ daemon: TestDaemon, _ client: LiveClient, _ student: String, week: Int,
                extra: HTTPFields = [:]) async throws -> LiveAnswer {
        var headers = try await daemon.headers(.student, student, [.contentType: "audio/ogg"])
        headers.append(contentsOf: extra)
        return try await client.judged(daemon, uri: "/v1/students/\(student)/weeks/\(week)/submissions", headers: headers,
                                       body: try TestDaemon.fixture("speech.opus"))
    }

    @Test("within the window: the attempt is back, the files are gone, the recording it replaced awaits review again, student and coach are told; a replayed key answers 410")
    func withinWindow() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let first = try await upload(daemon, client, "S1001", week: 12)
            let firstId = try #require(first.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: firstId)?.state == .awaitingFeedback })
            let second = try await upload(daemon, client, "S1001", week: 12, extra: [.idempotencyKey: "take-2"])
            #expect(second.status == .created && (second.json?["attempts"] as? [String: Any])?["remaining"] as? Int == 0)
            let id = try #require(second.json?["id"] as? String)
            #expect(second.json?["withdrawable_until"] as? String == "2026-11-22T15:10:00Z")
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            #expect(try await daemon.runtime.database.submission(id: firstId)?.state == .superseded)
            let row = try #require(try await daemon.runtime.database.submission(id: id))
            let files = [row.originalPath, row.audioPath, row.waveformPath].compactMap { $0 }
            #expect(files.count == 3)

            let coach = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: try await daemon.headers(.coach, "C01"))
            #expect(coach.status == .forbidden)
            let stranger = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: try await daemon.headers(.student, "S1002"))
            #expect(stranger.status == .notFound)

            daemon.clock.advance(by: 9 * 60)
            let withdrawn = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: try await daemon.headers(.student, "S1001"))
            #expect(withdrawn.status == .ok && withdrawn.json?["state"] as? String == "withdrawn")
            #expect((withdrawn.json?["attempts"] as? [String: Any])?["remaining"] as? Int == 1, "the attempt is back")
            #expect(withdrawn.json?["withdrawn_at"] as? String == "2026-11-22T15:09:00Z" && withdrawn.json?["withdrawable_until"] is NSNull)
            let store = daemon.runtime.stateDirectory.artifactStore
            #expect(files.allSatisfy { !store.exists($0) }, "its files are removed")
            #expect(try await daemon.runtime.database.submission(id: firstId)?.state == .awaitingFeedback, "the one it replaced is back")
            let again = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: try await daemon.headers(.student, "S1001"))
            #expect(again.status == .ok && again.json?["state"] as? String == "withdrawn")
            // Nothing to answer or to play any more.
            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(reply.status == .conflict && reply.json?["code"] as? String == "not_answerable")
            let audio = try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(audio.status == .gone && audio.json?["code"] as? String == "submission_withdrawn")

            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect((timeline.json?["attempts"] as? [String: Any])?["remaining"] as? Int == 1)
            let queue = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: try await daemon.headers(.coach, "C01"))
            #expect(queue.status == .ok && !String(decoding: Data(buffer: queue.body), as: UTF8.self).contains(id), "gone from the coach's queue")

            let events = try await daemon.runtime.database.engine.read { db in
                try EventRecord.fetchAll(db, where: "type = 'submission_withdrawn'", orderBy: "seq")
            }
            #expect(events.map(\.recipient) == ["student", "coach"] && events.last?.recipientId == "C01")

            // The original request replayed with its key: the recording it made is gone.
            let replay = try await upload(daemon, client, "S1001", week: 12, extra: [.idempotencyKey: "take-2"])
            #expect(replay.status == .gone && replay.json?["code"] as? String == "submission_withdrawn")

            // After the window: refused with the reason.
            daemon.clock.advance(by: 5 * 60)
            let late = try await client.execute(uri: "/v1/submissions/\(firstId)", method: .delete, headers: try await daemon.headers(.student, "S1001"))
            #expect(late.status == .conflict && late.json?["code"] as? String == "withdraw_window_passed")
            #expect((late.json?["detail"] as? String)?.contains("within 10 minutes") == true)
        }
    }

    @Test("after the coach's reply a recording cannot be withdrawn")
    func afterReply() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (id, _) = try await daemon.answeredRecording(client)
            let refused = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: try await daemon.headers(.student, "S1001"))
            #expect(refused.status == .conflict && refused.json?["code"] as? String == "feedback_given")
            #expect(try await daemon.runtime.database.submission(id: id)?.state == .feedbackReady)
        }
    }

    @Test("Recorded-At decides late only when believable; a malformed one is refused before the body")
    func recordedAt() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            // Sunday 10:00: week 11's deadline (Friday 23:59 EST) has passed.
            let offline = try await upload(daemon, client, "S1001", week: 11, extra: [.recordedAt: "2026-11-20T23:00:00-05:00"])
            #expect(offline.status == .created && offline.json?["late"] as? Bool == false)
            #expect(offline.json?["recorded_at"] as? String == "2026-11-21T04:00:00Z" && offline.json?["received_at"] as? String == "2026-11-22T15:00:00Z")
            // Four days before the upload: past the 72-hour allowance, so the server's clock decides.
            let stale = try await upload(daemon, client, "S1002", week: 11, extra: [.recordedAt: "2026-11-18T10:00:00Z"])
            #expect(stale.status == .created && stale.json?["late"] as? Bool == true && stale.json?["recorded_at"] as? String == "2026-11-18T10:00:00Z")
            // In the future: ignored too.
            let future = try await upload(daemon, client, "S1003", week: 11, extra: [.recordedAt: "2026-11-23T10:00:00Z"])
            #expect(future.status == .created && future.json?["late"] as? Bool == true)
            let malformed = try await upload(daemon, client, "S1004", week: 11, extra: [.recordedAt: "last Friday"])
            #expect(malformed.status == .badRequest && malformed.json?["code"] as? String == "invalid_recorded_at")
        }
    }
}
