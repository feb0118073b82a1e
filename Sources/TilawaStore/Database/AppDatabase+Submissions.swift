import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Applies the programme's rules and, if they allow it, records the submission, its
    /// encode job and its `submission_received` event — all in one `BEGIN IMMEDIATE`
    /// transaction, so concurrent uploads by one student (from any process) are admitted
    /// one at a time and never exceed the attempt limit.
    public func admitSubmission(_ request: AdmissionRequest, policy: ProgramPolicy) throws -> AdmissionOutcome {
        try immediateWrite { db in
            guard let student = try StudentRecord.fetchOne(db, key: request.studentId) else {
                let id = Identifier(rawValue: request.studentId)
                let refusal: RuleRefusal = id.map { .unknownStudent(id: $0) } ?? .invalidIdentifier(input: request.studentId)
                return .refused(refusal, timeZone: TimeZone(identifier: "UTC")!)
            }
            let context = try StudentContext.load(db, student: student, policy: policy)
            switch context.rules.admit(slot: request.slot, history: context.history, now: request.receivedAt) {
            case let .failure(refusal):
                return .refused(refusal, timeZone: context.calendar.timeZone)
            case let .success(admission):
                let submission = SubmissionRecord(
                    id: request.submissionId, studentId: student.id, semesterId: student.semesterId,
                    kind: request.slot.kind, week: request.slot.week, state: .processing,
                    receivedAt: request.receivedAt, late: admission.late, analysis: request.analysis,
                    source: request.source, warnings: request.warnings, originalPath: request.originalPath,
                    originalBytes: request.originalBytes, audioPath: nil, audioBytes: nil, waveformPath: nil,
                    outputGainDB: nil, encodedAt: nil, failureReason: nil, origin: request.origin, overdueNotifiedAt: nil)
                try submission.insert(db)
                for superseded in admission.supersedes {
                    try db.execute(
                        sql: "UPDATE submission SET state = ? WHERE id = ? AND state IN (?, ?)",
                        arguments: [SubmissionState.superseded.rawValue, superseded.rawValue,
                                    SubmissionState.processing.rawValue, SubmissionState.awaitingFeedback.rawValue])
                }
                var job = JobRecord(kind: .encodeSubmission, subjectId: submission.id, now: request.receivedAt)
                try job.insert(db)
                try Self.recordEvent(
                    db, type: "submission_received", student: student, slot: request.slot, occurredAt: request.receivedAt,
                    submissionId: submission.id, feedbackId: nil, coachName: nil,
                    message: Self.receivedMessage(slot: request.slot, context: context, late: admission.late, policy: policy))
                return .admitted(submission, attempts: admission.attempts, job: job)
            }
        }
    }

    /// Records an upload refused for its audio or by a rule (audit only; no attempt used).
    @discardableResult
    public func recordRejection(_ rejection: RejectionRecord) throws -> RejectionRecord {
        try writer.write { db in
            var record = rejection
            try record.insert(db)
            return record
        }
    }

    /// The submission with `id`, if any.
    public func submission(id: String) throws -> SubmissionRecord? {
        try writer.read(Self.submissionQuery(id: id))
    }

    /// `submission` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func submission(id: String) async throws -> SubmissionRecord? {
        try await writer.read(Self.submissionQuery(id: id))
    }

    /// The transaction of `submission`, shared by its synchronous and async forms.
    static func submissionQuery(id: String) -> @Sendable (Database) throws -> SubmissionRecord? {
        { db in try SubmissionRecord.fetchOne(db, key: id) }
    }

    /// The student with `id`, if any.
    public func student(id: String) throws -> StudentRecord? {
        try writer.read { db in try StudentRecord.fetchOne(db, key: id) }
    }

    /// The attempt status of a student now (for answers that do not admit anything).
    public func attemptStatus(studentId: String, policy: ProgramPolicy, now: Date) throws -> AttemptStatus? {
        try writer.read(Self.attemptStatusQuery(studentId: studentId, policy: policy, now: now))
    }

    /// `attemptStatus` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func attemptStatus(studentId: String, policy: ProgramPolicy, now: Date) async throws -> AttemptStatus? {
        try await writer.read(Self.attemptStatusQuery(studentId: studentId, policy: policy, now: now))
    }

    /// The transaction of `attemptStatus`, shared by its synchronous and async forms.
    static func attemptStatusQuery(studentId: String, policy: ProgramPolicy, now: Date) -> @Sendable (Database) throws -> AttemptStatus? {
        { db in
            guard let student = try StudentRecord.fetchOne(db, key: studentId) else { return nil }
            return try StudentContext.load(db, student: student, policy: policy).rules.attemptStatus(
                history: try StudentContext.history(db, studentId: studentId), now: now)
        }
    }

    static func receivedMessage(slot: Slot, context: StudentContext, late: Bool, policy: ProgramPolicy) -> String {
        StudentMessages.recordingReceived(context.slotTitle(slot), late: late, feedbackDueHours: policy.feedbackDueHours)
    }

    /// Inserts an outbox event (inside the caller's transaction).
    static func recordEvent(
        _ db: Database, type: String, student: StudentRecord, slot: Slot, occurredAt: Date,
        submissionId: String?, feedbackId: String?, coachName: String?, message: String
    ) throws {
        let id = IdentifierGenerator.make("evt", now: occurredAt)
        let week = try StudentContext.weekInfo(db, levelId: student.levelId, slot: slot)
        let link: DeepLink
        if let feedbackId, let identifier = Identifier(rawValue: feedbackId) {
            link = .feedback(slot, id: identifier)
        } else if let submissionId, let identifier = Identifier(rawValue: submissionId) {
            link = .submission(slot, id: identifier)
        } else {
            link = .week(slot)
        }
        let payload = EventPayload(
            id: id, type: type, studentId: student.id, occurredAt: occurredAt, week: week,
            submissionId: submissionId, feedbackId: feedbackId, coachName: coachName, message: message,
            link: link.absoluteString)
        var event = EventRecord(id: id, studentId: student.id, type: type, payload: try payload.jsonData(), occurredAt: occurredAt)
        try event.insert(db)
    }
}

extension AppDatabase {
    /// A refusal found by `precheckAdmission`, with the zone its message is written in.
    public struct Precheck: Sendable {
        public var refusal: RuleRefusal
        public var timeZone: TimeZone
    }

    /// Applies the rules without writing: the refusal the student would get now, if any.
    /// Cheap enough to run before decoding an upload; not a substitute for `admitSubmission`.
    public func precheckAdmission(studentId: String, slot: Slot, policy: ProgramPolicy, now: Date) throws -> Precheck? {
        try writer.read { db in
            guard let student = try StudentRecord.fetchOne(db, key: studentId) else {
                let refusal: RuleRefusal = Identifier(rawValue: studentId).map { .unknownStudent(id: $0) }
                    ?? .invalidIdentifier(input: studentId)
                return Precheck(refusal: refusal, timeZone: TimeZone(identifier: "UTC")!)
            }
            let context = try StudentContext.load(db, student: student, policy: policy)
            if case let .failure(refusal) = context.rules.admit(slot: slot, history: context.history, now: now) {
                return Precheck(refusal: refusal, timeZone: context.calendar.timeZone)
            }
            return nil
        }
    }
}
