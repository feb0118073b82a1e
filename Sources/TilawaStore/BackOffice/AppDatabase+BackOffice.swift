import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Applies a back-office action (DESIGN §11) by `actor` for `reason`: the change, its audit
    /// row and the notifications it implies, in one `BEGIN IMMEDIATE` transaction — a refused
    /// action writes nothing.
    public func apply(_ action: BackOfficeAction, by actor: String, reason: String, policy: ProgramPolicy, now: Date) async throws
        -> Result<AuditRecord, BackOfficeRefusal>
    {
        try await immediateWrite { db in try Self.apply(db, action, by: actor, reason: reason, policy: policy, now: now) }
    }

    /// `apply` for the command line.
    public func applyNow(_ action: BackOfficeAction, by actor: String, reason: String, policy: ProgramPolicy, now: Date) throws
        -> Result<AuditRecord, BackOfficeRefusal>
    {
        try immediateWrite { db in try Self.apply(db, action, by: actor, reason: reason, policy: policy, now: now) }
    }

    static func apply(_ db: SQLSession, _ action: BackOfficeAction, by actor: String, reason: String, policy: ProgramPolicy, now: Date) throws
        -> Result<AuditRecord, BackOfficeRefusal>
    {
        // Before anything is written: an erased student is given nothing and told nothing.
        for student in try studentsTouched(db, by: action) where try isErased(db, studentId: student) {
            return .failure(.studentErased(student))
        }
        let drafted: Result<AuditDraft, BackOfficeRefusal> = switch action {
        case let .extend(studentId, slot, dueAt): try extend(db, studentId: studentId, slot: slot, dueAt: dueAt, policy: policy, now: now)
        case let .grant(studentId, count, expiresAt): try grant(db, studentId: studentId, count: count, expiresAt: expiresAt, policy: policy, now: now)
        case let .moveFeedback(feedbackId, submissionId): try moveFeedback(db, feedbackId: feedbackId, to: submissionId, now: now)
        case let .changeEnrolment(studentId, coachId, levelId, state):
            try changeEnrolment(db, studentId: studentId, coachId: coachId, levelId: levelId, state: state, by: actor, policy: policy, now: now)
        case let .cover(coachId, coveringCoachId, until): try cover(db, coachId: coachId, by: coveringCoachId, until: until, now: now)
        }
        switch drafted {
        case let .failure(refusal):
            return .failure(refusal)
        case let .success(draft):
            let record = try recordAudit(db, draft, actor: actor, reason: reason, at: now)
            for change in draft.enrolmentChanges {
                try db.execute(sql: "UPDATE enrolmentChange SET auditId = ? WHERE id = ?", arguments: [record.id, change])
            }
            return .success(record)
        }
    }

    /// The students an action changes or notifies: the one it names, or for a moved reply the
    /// students of both recordings. A cover notifies coaches only.
    static func studentsTouched(_ db: SQLSession, by action: BackOfficeAction) throws -> [String] {
        switch action {
        case let .extend(studentId, _, _), let .grant(studentId, _, _), let .changeEnrolment(studentId, _, _, _):
            return [studentId]
        case let .moveFeedback(feedbackId, submissionId):
            return try String.fetchAll(db, sql: """
                SELECT studentId FROM submission WHERE id = ? OR id = (SELECT submissionId FROM feedback WHERE id = ?)
                """, arguments: [submissionId, feedbackId])
        case .cover:
            return []
        }
    }

    /// The student's current enrolment's context, or why there is none to act on.
    static func actionContext(_ db: SQLSession, studentId: String, policy: ProgramPolicy, now: Date) throws -> Result<StudentContext, BackOfficeRefusal> {
        guard let student = try StudentRecord.fetchOne(db, key: studentId) else { return .failure(.unknownStudent(studentId)) }
        guard let enrolment = try StudentContext.currentEnrolment(db, studentId: studentId, now: now) else {
            return .failure(.noEnrolment(studentId))
        }
        return .success(try StudentContext.load(db, student: student, enrolment: enrolment, policy: policy))
    }

    /// `extend`: the student's deadline of `slot` in their current enrolment becomes `dueAt`
    /// (replacing an earlier extension of it). The recordings of that slot already in are late
    /// or not by the new deadline; the student is told.
    static func extend(_ db: SQLSession, studentId: String, slot: Slot, dueAt: Date, policy: ProgramPolicy, now: Date) throws -> Result<AuditDraft, BackOfficeRefusal> {
        let context: StudentContext
        switch try actionContext(db, studentId: studentId, policy: policy, now: now) {
        case let .failure(refusal): return .failure(refusal)
        case let .success(found): context = found
        }
        guard context.enrolment.isPlaced else { return .failure(.notPlaced(studentId)) }
        let calendar = context.calendar
        let own: Date
        switch slot {
        case let .week(week) where (1...calendar.weekCount).contains(week): own = calendar.deadline(week: week)
        case .eoc: own = calendar.closesAt
        default: return .failure(.invalidSlot(slot.description))
        }
        guard dueAt > own else { return .failure(.extensionNotLater(deadline: own)) }
        let latest = calendar.closesAt.addingTimeInterval(BackOfficeAction.maximumExtensionPastClose)
        guard dueAt <= latest else { return .failure(.extensionTooFar(latest: latest)) }
        let before: Date = slot == .eoc ? context.rules.closesAt(for: .eoc) : context.rules.deadline(week: slot.week ?? 0)
        try db.execute(sql: """
            INSERT INTO deadlineExtension (enrolmentId, slot, dueAt) VALUES (?, ?, ?)
            ON CONFLICT (enrolmentId, slot) DO UPDATE SET dueAt = excluded.dueAt
            """, arguments: [context.enrolmentId, slot.description, dueAt])
        if let week = slot.week {
            // `late` of what is in already follows the deadline it is judged by now.
            try db.execute(sql: """
                UPDATE submission SET late = CASE WHEN COALESCE(recordedAt, receivedAt) > ? THEN 1 ELSE 0 END
                WHERE enrolmentId = ? AND kind = 'week' AND week = ?
                """, arguments: [dueAt, context.enrolmentId, week])
            if !context.rules.owes(week: week) {
                try db.execute(sql: "UPDATE submission SET late = 0 WHERE enrolmentId = ? AND kind = 'week' AND week = ?",
                               arguments: [context.enrolmentId, week])
            }
        }
        let info = try StudentContext.weekInfo(db, levelId: context.enrolment.levelId, slot: slot)
        try recordEvent(
            db, type: .deadlineExtended, studentId: studentId, levelId: context.enrolment.levelId, slot: slot, occurredAt: now,
            submissionId: nil, feedbackId: nil, coachName: nil,
            message: StudentMessages.deadlineExtended(week: slot.week, title: info.title, due: dueAt, zone: context.zone))
        return .success(AuditDraft(
            action: "deadline_extended", studentId: studentId, coachId: context.enrolment.coachId,
            before: ["semester_id": .text(context.semester.id), "week": .text(slot.description), "due_at": .instant(before)],
            after: ["semester_id": .text(context.semester.id), "week": .text(slot.description), "due_at": .instant(dueAt)]))
    }

    /// `grant`: `count` recordings beyond the attempt window until `expiresAt`; the student is told.
    static func grant(_ db: SQLSession, studentId: String, count: Int, expiresAt: Date, policy: ProgramPolicy, now: Date) throws -> Result<AuditDraft, BackOfficeRefusal> {
        guard let student = try StudentRecord.fetchOne(db, key: studentId) else { return .failure(.unknownStudent(studentId)) }
        guard (1...BackOfficeAction.maximumGrant).contains(count) else { return .failure(.invalidCount(count)) }
        guard expiresAt > now else { return .failure(.expiryNotFuture) }
        let latest = now.addingTimeInterval(BackOfficeAction.maximumHorizon)
        guard expiresAt <= latest else { return .failure(.tooFarAhead(latest: latest)) }
        let context = try StudentContext.load(db, studentId: studentId, now: now, policy: policy)
        let before = context.map { $0.rules.attemptStatus(history: $0.history, now: now, elsewhere: $0.elsewhere) }
        let id = IdentifierGenerator.make("grt", now: now)
        try db.execute(sql: "INSERT INTO attemptGrant (id, studentId, count, expiresAt, createdAt) VALUES (?, ?, ?, ?, ?)",
                       arguments: [id, studentId, count, expiresAt, now])
        let zone = context?.zone ?? student.zone(or: .gmt)
        try recordEvent(
            db, type: .attemptsGranted, studentId: studentId, levelId: context?.enrolment.levelId, slot: .assessment, occurredAt: now,
            submissionId: nil, feedbackId: nil, coachName: nil,
            message: StudentMessages.attemptsGranted(count: count, expiresAt: expiresAt, zone: zone))
        return .success(AuditDraft(
            action: "attempts_granted", studentId: studentId, coachId: context?.enrolment.coachId,
            before: before.map { ["remaining": .int($0.remaining), "granted": .int($0.granted)] },
            after: ["grant_id": .text(id), "count": .int(count), "expires_at": .instant(expiresAt)]))
    }
}
