import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("The end-of-course assessment over HTTP")
struct EndOfCourseRouteTests {
    /// Monday 7 December 2026, 10:00 in New York: fall's week 14 (the opening week) unlocked on the 5th.
    static let week14 = Date(timeIntervalSince1970: 1_796_655_600)

    /// Twelve weeks of S1001's fall, each recorded the day its week unlocked and encoded.
    static func seedTwelveWeeks(_ daemon: TestDaemon) throws {
        let calendar = try SemesterCalendar(start: LocalDate(year: 2026, month: 9, day: 5), timeZoneIdentifier: "America/New_York")
        let analysis = AudioAnalysis(durationSeconds: 60, speechSeconds: 50, speechRatio: 0.8, loudnessLUFS: -20, peakDBFS: -3,
                                     clippedRatio: 0, leadingSilenceSeconds: 0.3, trailingSilenceSeconds: 0.3)
        let source = AudioSource(container: "ogg", codec: "opus", sampleRate: 48_000, channels: 1)
        for week in 1...12 {
            let at = calendar.unlock(week: week).addingTimeInterval(3_600)
            let id = IdentifierGenerator.make("sub", now: at)
            let outcome = try daemon.runtime.database.admitSubmission(AdmissionRequest(
                submissionId: id, studentId: "S1001", slot: .week(week), receivedAt: at, analysis: analysis, source: source,
                warnings: [], originalPath: "originals/\(id).opus", originalBytes: 100, origin: .cli), policy: daemon.runtime.policy)
            guard case let .admitted(_, _, job) = outcome, let jobId = job.id else { throw CancellationError() }
            try daemon.runtime.database.completeSubmissionEncode(
                jobId: jobId, submissionId: id, audioPath: "submissions/\(id).opus", audioBytes: 10,
                waveformPath: "submissions/\(id).peaks.json", outputGainDB: 0, now: at.addingTimeInterval(60))
        }
    }

    @Test("recorded in week 14, answered with result=pass (422 without it), the level graduated on the timeline")
    func passOverHTTP() async throws {
        let daemon = try await TestDaemon(at: Self.week14)
        defer { daemon.remove() }
        try Self.seedTwelveWeeks(daemon)
        try await daemon.application().live { client in
            let student = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            var timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: student)
            var eoc = try #require(timeline.json?["eoc"] as? [String: Any])
            #expect(eoc["state"] as? String == "available" && eoc["have"] as? Int == 12)
            #expect((eoc["passage"] as? [String: Any])?["title"] as? String == "Foundations review")

            // The minute's sweep (ProgrammeClockService) announces it once.
            #expect(try await daemon.runtime.database.recordEOCAvailable(policy: daemon.runtime.policy, now: daemon.clock.now) == 1)
            #expect(try await daemon.runtime.database.recordEOCAvailable(policy: daemon.runtime.policy, now: daemon.clock.now) == 0)
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/eoc/submissions", method: .post, headers: student,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(upload.status == .created)
            let id = try #require(upload.json?["id"] as? String)
            // Five business days later at the same local time: Monday 14 December, 10:00 EST.
            #expect(upload.json?["feedback_due_at"] as? String == "2026-12-14T15:00:00Z")
            #expect((upload.json?["coach"] as? [String: Any])?["id"] as? String == "C01")
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let again = try await client.execute(uri: "/v1/students/S1001/weeks/eoc/submissions", method: .post, headers: student,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(again.status == .conflict && again.json?["code"] as? String == "eoc_under_review")
            timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: student)
            eoc = try #require(timeline.json?["eoc"] as? [String: Any])
            #expect(eoc["state"] as? String == "under_review" && eoc["results_expected_by"] as? String == "2026-12-14T15:00:00Z")
            #expect((eoc["message"] as? String)?.contains("Results expected by Monday 14 December") == true)

            let coach = try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"])
            let bare = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post, headers: coach,
                                                body: try TestDaemon.fixture("speech.opus"))
            #expect(bare.status == .unprocessableContent && bare.json?["code"] as? String == "eoc_result_missing")
            let bad = try await client.execute(uri: "/v1/submissions/\(id)/feedback?result=maybe", method: .post, headers: coach,
                                               body: try TestDaemon.fixture("speech.opus"))
            #expect(bad.status == .badRequest && bad.json?["code"] as? String == "invalid_result")
            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback?result=pass", method: .post, headers: coach,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(reply.status == .created && reply.json?["result"] as? String == "pass")
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.result == .pass })

            timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: student)
            eoc = try #require(timeline.json?["eoc"] as? [String: Any])
            #expect(eoc["state"] as? String == "passed" && eoc["result"] as? String == "pass")
            #expect(eoc["message"] as? String == "Congratulations! You've graduated Foundations.")
            #expect(((eoc["feedback"] as? [[String: Any]])?.first)?["result"] as? String == "pass")
            #expect(timeline.json?["graduated"] as? Bool == true)
            let semesters = try #require(timeline.json?["semesters"] as? [[String: Any]])
            #expect(semesters.first?["outcome"] as? String == "graduated")
            let shown = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: student)
            #expect(shown.json?["result"] as? String == "pass")
            #expect(((shown.json?["feedback"] as? [[String: Any]])?.first)?["result"] as? String == "pass")

            let events = try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: student)
            let types = (events.json?["events"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(types.contains("eoc_available") && types.last == "eoc_results_ready")
        }
    }
}
