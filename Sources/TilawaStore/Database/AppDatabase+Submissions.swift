import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Applies the programme's rules and, if they allow it, records the submission, its
    /// encode job and its `submission_received` event — all in one transaction under the
    /// student's lock (`lockedWrite`), so concurrent uploads by one student (from any process
    /// or node) are admitted one at a time and never exceed the attempt limit.
    public func admitSubmission(_ request: AdmissionRequest, policy: ProgramPolicy) throws -> AdmissionOutcome {
        // The student's lock before anything is read: on PostgreSQL every later statement then
        // counts what the previous admission of this student committed, on whichever node.
        try engine.lockedWrite(.student(request.studentId)) { db in
            guard let context = try StudentContext.load(db, studentId: request.studentId, now: request.receivedAt, policy: policy) else {
                return .refused(Self.unknownStudentRefusal(request.studentId), timeZone: .gmt)
            }
            let admitted = context.rules.admit(
                slot: request.slot, history: context.history, now: request.receivedAt, elsewhere: context.elsewhere,
                recordedAt: request.lateReference)
            switch admitted {
            case let .failure(refusal):
                return .refused(refusal, timeZone: context.zone)
            case let .success(admission):
                let dueAt = policy.feedbackDueAt(kind: request.slot.kind, receivedAt: request.receivedAt, timeZone: context.calendar.timeZone)
                var submission = SubmissionRecord(
                    id: request.submissionId, studentId: context.student.id, semesterId: context.semester.id,
                    enrolmentId: context.enrolmentId, kind: request.slot.kind, week: request.slot.week, state: .processing,
                    receivedAt: request.receivedAt, late: admission.late, analysis: request.analysis,
                    source: request.source, warnings: request.warnings, originalPath: request.originalPath,
                    originalBytes: request.originalBytes, audioPath: nil, audioBytes: nil, waveformPath: nil,
                    outputGainDB: nil, encodedAt: nil, failureReason: nil, origin: request.origin, overdueNotifiedAt: nil,
                    feedbackDueAt: dueAt, result: nil, supersededBy: nil, withdrawnAt: nil, recordedAt: request.recordedAt,
                    speechSegments: request.speechSegments)
                submission.grantId = admission.grantId
                // What was recited: kept if the enrolment's level changes later.
                if request.slot != .assessment {
                    submission.levelId = context.enrolment.levelId
                    submission.title = request.slot == .eoc ? context.level?.eocTitle : request.slot.week.flatMap { context.titles[$0] }
                }
                try submission.insert(db)
                // The request's key answered in this commit: a retry finds this recording.
                try Self.rememberCreated(db, claim: request.idempotency, id: submission.id, now: request.receivedAt)
                for superseded in admission.supersedes {
                    try db.execute(
                        sql: "UPDATE submission SET state = ?, supersededBy = ? WHERE id = ? AND state IN (?, ?)",
                        arguments: [SubmissionState.superseded.rawValue, submission.id, superseded.rawValue,
                                    SubmissionState.processing.rawValue, SubmissionState.awaitingFeedback.rawValue])
                }
                var job = JobRecord(kind: .encodeSubmission, subjectId: submission.id, now: request.receivedAt)
                try job.insert(db)
                let coach = try context.enrolment.coachId.flatMap { try CoachRecord.fetchOne(db, key: $0) }
                try Self.recordEvent(
                    db, type: .submissionReceived, studentId: context.student.id, levelId: context.enrolment.levelId,
                    slot: request.slot, occurredAt: request.receivedAt, submissionId: submission.id, feedbackId: nil,
                    coachName: coach?.name,
                    message: Self.receivedMessage(slot: request.slot, context: context, late: admission.late, coachName: coach?.name,
                                                  dueAt: dueAt, policy: policy))
                if request.slot.kind == .week {
                    // A weekly recording may make the student eligible inside the EOC window.
                    try Self.recordEOCAvailableIfDue(db, studentId: context.student.id, enrolmentId: context.enrolmentId,
                                                     policy: policy, now: request.receivedAt)
                }
                return .admitted(submission, attempts: admission.attempts, job: job)
            }
        }
    }

    /// `unknown_student` for a well-formed id, `invalid_identifier` otherwise.
    static func unknownStudentRefusal(_ studentId: String) -> RuleRefusal {
        Identifier(rawValue: studentId).map { .unknownStudent(id: $0) } ?? .invalidIdentifier(input: studentId)
    }

    /// Records an upload refused for its audio or by a rule (audit only; no attempt used).
    @discardableResult
    public func recordRejection(_ rejection: RejectionRecord) throws -> RejectionRecord {
        try engine.write { db in
            var record = rejection
            try record.insert(db)
            return record
        }
    }

    /// The submission with `id`, if any.
    public func submission(id: String) throws -> SubmissionRecord? {
        try engine.read(Self.submissionQuery(id: id))
    }

    /// `submission` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func submission(id: String) async throws -> SubmissionRecord? {
        try await engine.read(Self.submissionQuery(id: id))
    }

    /// The transaction of `submission`, shared by its synchronous and async forms.
    static func submissionQuery(id: String) -> @Sendable (SQLSession) throws -> SubmissionRecord? {
        { db in try SubmissionRecord.fetchOne(db, key: id) }
    }

    /// The student with `id`, if any.
    public func student(id: String) throws -> StudentRecord? {
        try engine.read { db in try StudentRecord.fetchOne(db, key: id) }
    }

    /// The attempt status of a student now (for answers that do not admit anything); it
    /// counts every semester's recordings, the window being the student's.
    public func attemptStatus(studentId: String, policy: ProgramPolicy, now: Date) throws -> AttemptStatus? {
        try engine.read(Self.attemptStatusQuery(studentId: studentId, policy: policy, now: now))
    }

    /// `attemptStatus` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func attemptStatus(studentId: String, policy: ProgramPolicy, now: Date) async throws -> AttemptStatus? {
        try await engine.read(Self.attemptStatusQuery(studentId: studentId, policy: policy, now: now))
    }

    /// The transaction of `attemptStatus`, shared by its synchronous and async forms.
    static func attemptStatusQuery(studentId: String, policy: ProgramPolicy, now: Date) -> @Sendable (SQLSession) throws -> AttemptStatus? {
        { db in
            guard let context = try StudentContext.load(db, studentId: studentId, now: now, policy: policy) else { return nil }
            return context.rules.attemptStatus(history: context.history, now: now, elsewhere: context.elsewhere)
        }
    }

    static func receivedMessage(
        slot: Slot, context: StudentContext, late: Bool, coachName: String?, dueAt: Date, policy: ProgramPolicy
    ) -> EventMessage {
        switch slot {
        case let .week(number):
            StudentMessages.recordingReceived(week: number, title: context.titles[number], late: late, coachName: coachName,
                                              feedbackDueHours: policy.feedbackDueHours)
        case .eoc:
            StudentMessages.eocReceived(businessDays: policy.eocFeedbackDueBusinessDays, expectedBy: dueAt, zone: context.zone)
        case .assessment:
            StudentMessages.assessmentReceived(placed: context.enrolment.isPlaced, placementDueHours: policy.placementDueHours)
        }
    }

    /// Whether an event is pushed to its recipient's device: not what a student did
    /// themselves (their recording received, their own withdrawal: they are looking at the
    /// app), everything else. (Per-category preferences are not built yet: every other event
    /// pushes.)
    /// Whether the student left `type`'s category on (decided when the event is written; a
    /// later change of preference never rewrites it). Staff events have no such choice.
    static func studentWantsPush(_ db: SQLSession, studentId: String, type: EventType, recipient: EventRecipient) throws -> Bool {
        guard case .student = recipient, let category = type.pushCategory else { return true }
        return try StudentRecord.fetchOne(db, key: studentId)?.wantsPush(category) ?? true
    }

    static func pushes(_ type: EventType, to recipient: EventRecipient) -> Bool {
        !causedByStudent(type, to: recipient)
    }

    /// Whether a student's event records what they did themselves (they are looking at the app).
    static func causedByStudent(_ type: EventType, to recipient: EventRecipient) -> Bool {
        guard case .student = recipient else { return false }
        return [.submissionReceived, .submissionWithdrawn].contains(type)
    }

    /// Inserts an outbox event (inside the caller's transaction). `levelId` names the week's
    /// title and passage (the enrolment's level; nil before placement).
    @discardableResult
    static func recordEvent(
        _ db: SQLSession, type: EventType, studentId: String, levelId: String?, slot: Slot, occurredAt: Date,
        submissionId: String?, feedbackId: String?, coachName: String?, message: EventMessage, extra: EventPayload.Extra? = nil,
        recipient: EventRecipient = .student
    ) throws -> String {
        let recipient = try coverAware(db, recipient, type: type, at: occurredAt)
        let id = IdentifierGenerator.make("evt", now: occurredAt)
        let week = try StudentContext.weekInfo(db, levelId: levelId, slot: slot)
        let link: DeepLink
        if let feedbackId, let identifier = Identifier(rawValue: feedbackId) {
            link = .feedback(slot, id: identifier)
        } else if let submissionId, let identifier = Identifier(rawValue: submissionId) {
            link = .submission(slot, id: identifier)
        } else {
            link = .week(slot)
        }
        var payload = EventPayload(
            id: id, type: type.rawValue, recipient: recipient.role, recipientId: recipient.id, studentId: studentId,
            occurredAt: occurredAt, week: week,
            submissionId: submissionId, feedbackId: feedbackId, coachName: coachName, message: message.text,
            link: link.absoluteString, extra: extra)
        payload.messageKey = message.key
        payload.params = message.params
        payload.push = try Self.pushes(type, to: recipient)
            && Self.studentWantsPush(db, studentId: studentId, type: type, recipient: recipient)
        var event = EventRecord(id: id, studentId: studentId, type: type.rawValue, payload: try payload.jsonData(), occurredAt: occurredAt,
                                recipient: recipient)
        // What the student did themselves (their recording received, their own withdrawal) is
        // in their feed for the record, already read: it never raises the app's badge.
        if Self.causedByStudent(type, to: recipient) { event.readAt = occurredAt }
        try insertEvent(db, &event)
        return id
    }

    /// Stores `event`, numbered (`seq`) after every event of its recipient that is committed or
    /// being written.
    ///
    /// The recipient's lock is taken first and held to the commit. On PostgreSQL a sequence
    /// hands out numbers as transactions ask and they commit in any order: without the lock, a
    /// feed read with a cursor could see number 11 committed, move past it, and never see 10
    /// commit after. With it, one recipient's events commit in the order of their numbers, so
    /// that recipient's feed and its webhook queue (`queue`) never skip or reorder (DESIGN §13).
    /// On SQLite, whose writers take turns, the lock is nothing.
    ///
    /// A student's event that is never held for quiet hours (their recording received or
    /// refused: they are awake) releases what their queue holds for the morning
    /// (`holdForQuietHours`): it goes now, before this one.
    static func insertEvent(_ db: SQLSession, _ event: inout EventRecord) throws {
        try db.acquire(.recipient(event.queue))
        if event.recipient == "student", EventType(rawValue: event.type)?.pushCategory == nil {
            try db.execute(sql: """
                UPDATE event SET nextAttemptAt = ? WHERE queue = ? AND deliveredAt IS NULL AND attempts = 0 AND nextAttemptAt > ?
                """, arguments: [event.occurredAt, event.queue, event.occurredAt])
        }
        try event.insert(db)
    }

    /// The coach who gets an event meant for a coach under cover (DESIGN §11): the covering
    /// one — except the covered coach's own digest (none is made while they are covered), the
    /// notice of a cover itself, and a login link the coach asked for (theirs alone).
    static func coverAware(_ db: SQLSession, _ recipient: EventRecipient, type: EventType, at instant: Date) throws -> EventRecipient {
        guard case let .coach(coachId) = recipient, ![.coachDigest, .coverStarted, .deskLinkRequested].contains(type),
              let covering = try coveringCoach(db, of: coachId, at: instant) else { return recipient }
        return .coach(covering)
    }

    /// Inserts an outbox event about no student and no week (inside the caller's transaction):
    /// a coach's digest or operations' `storage_low`. A student's event names its student:
    /// use `recordEvent`.
    @discardableResult
    static func recordStaffEvent(
        _ db: SQLSession, type: EventType, occurredAt: Date, message: EventMessage, link: DeepLink, extra: EventPayload.Extra?,
        recipient: EventRecipient
    ) throws -> String {
        if case .student = recipient {
            throw StoreError.internalInconsistency("a student's event must name its student")
        }
        let recipient = try coverAware(db, recipient, type: type, at: occurredAt)
        let id = IdentifierGenerator.make("evt", now: occurredAt)
        var payload = EventPayload(
            id: id, type: type.rawValue, recipient: recipient.role, recipientId: recipient.id, studentId: nil,
            occurredAt: occurredAt, week: nil, submissionId: nil, feedbackId: nil, coachName: nil, message: message.text,
            link: link.absoluteString, extra: extra)
        payload.messageKey = message.key
        payload.params = message.params
        payload.push = Self.pushes(type, to: recipient)
        var event = EventRecord(id: id, studentId: nil, type: type.rawValue, payload: try payload.jsonData(), occurredAt: occurredAt,
                                recipient: recipient)
        try insertEvent(db, &event)
        return id
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
        try engine.read(Self.precheckQuery(studentId: studentId, slot: slot, policy: policy, now: now))
    }

    /// `precheckAdmission` from async code (a resumable upload's creation).
    public func precheckAdmission(studentId: String, slot: Slot, policy: ProgramPolicy, now: Date) async throws -> Precheck? {
        try await engine.read(Self.precheckQuery(studentId: studentId, slot: slot, policy: policy, now: now))
    }

    static func precheckQuery(studentId: String, slot: Slot, policy: ProgramPolicy, now: Date) -> @Sendable (SQLSession) throws -> Precheck? {
        { db in
            guard let context = try StudentContext.load(db, studentId: studentId, now: now, policy: policy) else {
                return Precheck(refusal: Self.unknownStudentRefusal(studentId), timeZone: .gmt)
            }
            let admitted = context.rules.admit(slot: slot, history: context.history, now: now, elsewhere: context.elsewhere)
            if case let .failure(refusal) = admitted {
                return Precheck(refusal: refusal, timeZone: context.zone)
            }
            return nil
        }
    }
}
