import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TilawaCore
import TilawaStore

/// The answer to a recording that has arrived whole, one-shot or resumable: its status, the
/// body remembered for replays, and the headers of the live answer (`Location`, `Retry-After`).
struct UploadAnswer: Sendable {
    var status: HTTPResponse.Status
    var body: Data
    var headers: HTTPFields

    /// The answer as a response, with `extra` headers (a resumable protocol's own) added.
    func response(adding extra: HTTPFields = [:]) -> Response {
        var headers = headers
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A remembered answer: its status and body, typed as it was first sent.
    static func stored(status: Int, body: Data) -> UploadAnswer {
        var headers: HTTPFields = [.contentType: status >= 400 ? "application/problem+json" : "application/json"]
        if status == 201, let id = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["id"] as? String,
           Identifier(rawValue: id) != nil {
            headers[.location] = "/v1/submissions/\(id)"
        }
        return UploadAnswer(status: .init(code: status), body: body, headers: headers)
    }

    /// The submission id of an accepted answer.
    var submissionId: String? {
        guard status == .created else { return nil }
        return (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["id"] as? String
    }
}

extension APIContext {
    /// Runs the intake on a staged recording and turns its outcome into the answer every
    /// upload route gives: 201 with the submission, 422 with the audio's reason, 409/429 with
    /// the rule's. `instance` is the problem documents' `instance` (the request's path).
    /// `idempotency`, the request's claimed key, is answered in the admission's own commit: a
    /// failure after it (building this answer) leaves the key answered with the recording.
    func judgeRecording(
        staged: StagedFile, studentId: String, slot: Slot, fileExtension: String, recordedAt: RecordedAt?, uploadBegan: Date,
        submissionId: String? = nil, idempotency: IdempotencyClaim? = nil, instance: String, logger: Logger
    ) async throws -> UploadAnswer {
        let intake = runtime.intake
        let started = ContinuousClock.now
        let outcome = try await pool.run {
            try intake.submit(staged: staged, studentId: studentId, slot: slot, origin: .http, fileExtension: fileExtension,
                              recordedAt: recordedAt, uploadBegan: uploadBegan, submissionId: submissionId, idempotency: idempotency)
        }
        metrics.analysisDuration.record(ContinuousClock.now - started)
        let problem: APIProblem
        switch outcome {
        case let .accepted(submission, attempts, _):
            wakeup.signal()
            metrics.countUpload(outcome: "accepted", reason: "")
            logger.info("upload accepted", metadata: ["submission": "\(submission.id)", "student": "\(runtime.pseudonyms.student(studentId))", "slot": "\(slot)"])
            return try await acceptedAnswer(submission, attempts: attempts)
        case let .rejected(verdict, analysis):
            problem = .audio(verdict, analysis: analysis)
            metrics.countUpload(outcome: "rejected", reason: problem.code)
        case let .refused(refusal, timeZone):
            problem = .rule(refusal, timeZone: timeZone, now: now)
            metrics.countUpload(outcome: "refused", reason: problem.code)
        }
        logger.info("upload refused", metadata: ["student": "\(runtime.pseudonyms.student(studentId))", "slot": "\(slot)", "code": "\(problem.code)"])
        var headers = problem.headers
        headers[.contentType] = "application/problem+json"
        return UploadAnswer(status: problem.status, body: try problem.body(instance: instance), headers: headers)
    }

    /// A remembered answer told from the recording's present (every replay path: a one-shot
    /// upload's `Idempotency-Key`, a resumable upload's creation or URL): an accepted
    /// recording withdrawn since is 410 `submission_withdrawn`; one still there is 201 with
    /// the submission as it is now (its state, feedback, attempts), not as it was when
    /// accepted. Refusals replay as they were.
    func currentAnswer(status: Int, body: Data, instance: String) async throws -> UploadAnswer {
        let stored = UploadAnswer.stored(status: status, body: body)
        guard let id = stored.submissionId, let submission = try await runtime.database.submission(id: id) else { return stored }
        if submission.state == .withdrawn {
            let problem = APIProblem(.gone, code: "submission_withdrawn",
                                     detail: "The recording this request created was withdrawn; record again with a new Idempotency-Key.")
            var headers = problem.headers
            headers[.contentType] = "application/problem+json"
            return UploadAnswer(status: problem.status, body: try problem.body(instance: instance), headers: headers)
        }
        return try await acceptedAnswer(submission, attempts: try await attempts(of: submission.studentId))
    }

    /// The student's attempt window now (a student with no enrolment yet: the whole window free).
    func attempts(of studentId: String) async throws -> AttemptStatus {
        let limit = runtime.policy.attemptWindow.limit
        return try await runtime.database.attemptStatus(studentId: studentId, policy: runtime.policy, now: now)
            ?? AttemptStatus(used: 0, limit: limit, remaining: limit, nextAttemptAt: nil)
    }

    /// 201 with `submission` as the upload routes show it.
    func acceptedAnswer(_ submission: SubmissionRecord, attempts: AttemptStatus) async throws -> UploadAnswer {
        let extras = try await runtime.database.submissionExtras(submission)
        let body = try APIJSON.encoder().encode(SubmissionResource(
            submission, attempts: attempts, extras: extras, withdrawMinutes: runtime.configuration.submissions.withdrawMinutes))
        return UploadAnswer(status: .created, body: body,
                            headers: [.contentType: "application/json", .location: "/v1/submissions/\(submission.id)"])
    }
}
