import Foundation
import GRDB
import TilawaCore

/// What asking for erasure did: the pending request, and whether it is new (a retry while one
/// is pending writes nothing and gives that one back).
public struct ErasureRequestOutcome: Sendable, Equatable {
    public var request: ErasureRequestRecord
    public var created: Bool
}

extension AppDatabase {
    /// Who the daemon's own erasures of due requests are audited as.
    public static let erasureRequestActor = "erasure request"

    /// A due request not carried out this long after its due instant means the automatic
    /// erasure is failing (`tilawa status` warns).
    public static let erasureRequestLateAfter: TimeInterval = 86_400

    /// Records the student's request to be erased (DESIGN §16), due `grace` after `now`, in one
    /// transaction under the student's lock (an upload judged at the same moment is before it
    /// or refused `erasure_pending`): `erasure_requested` to operations' webhook and an audit
    /// row by `actor`. A request while one is pending gives that one back, writing nothing.
    public func requestErasure(studentId: String, grace: TimeInterval, by actor: String, reason: String, now: Date) async throws
        -> Result<ErasureRequestOutcome, PrivacyRefusal>
    {
        try await engine.lockedWrite(.student(studentId)) { db in
            try Self.requestErasure(db, studentId: studentId, grace: grace, by: actor, reason: reason, now: now)
        }
    }

    static func requestErasure(_ db: SQLSession, studentId: String, grace: TimeInterval, by actor: String, reason: String, now: Date) throws
        -> Result<ErasureRequestOutcome, PrivacyRefusal>
    {
        guard let student = try livingStudent(db, studentId) else { return .failure(.unknownStudent(studentId)) }
        if let pending = try pendingErasureRequest(db, studentId: studentId) {
            return .success(ErasureRequestOutcome(request: pending, created: false))
        }
        var request = ErasureRequestRecord(studentId: studentId, requestedAt: now, dueAt: now.addingTimeInterval(grace), requestedBy: actor)
        try request.insert(db)
        try recordErasureRequested(db, student: student, request: request)
        _ = try recordAudit(db, AuditDraft(action: "erasure_requested", studentId: studentId,
                                           after: ["requested_at": .instant(request.requestedAt), "due_at": .instant(request.dueAt)]),
                            actor: actor, reason: reason, at: now)
        return .success(ErasureRequestOutcome(request: request, created: true))
    }

    /// Cancels the student's pending request (kept as history), audited
    /// `erasure_request_cancelled`; `no_erasure_request` when none is pending.
    public func cancelErasureRequest(studentId: String, by actor: String, reason: String, now: Date) async throws
        -> Result<ErasureRequestRecord, PrivacyRefusal>
    {
        try await engine.lockedWrite(.student(studentId)) { db in
            try Self.cancelErasureRequest(db, studentId: studentId, by: actor, reason: reason, now: now)
        }
    }

    /// `cancelErasureRequest` for the command line.
    public func cancelErasureRequestNow(studentId: String, by actor: String, reason: String, now: Date) throws
        -> Result<ErasureRequestRecord, PrivacyRefusal>
    {
        try engine.lockedWrite(.student(studentId)) { db in
            try Self.cancelErasureRequest(db, studentId: studentId, by: actor, reason: reason, now: now)
        }
    }

    static func cancelErasureRequest(_ db: SQLSession, studentId: String, by actor: String, reason: String, now: Date) throws
        -> Result<ErasureRequestRecord, PrivacyRefusal>
    {
        guard try livingStudent(db, studentId) != nil else { return .failure(.unknownStudent(studentId)) }
        guard var request = try pendingErasureRequest(db, studentId: studentId) else { return .failure(.noErasureRequest(studentId)) }
        request.cancelledAt = now
        request.cancelledBy = actor
        try request.update(db)
        _ = try recordAudit(db, AuditDraft(action: "erasure_request_cancelled", studentId: studentId,
                                           before: ["requested_at": .instant(request.requestedAt), "due_at": .instant(request.dueAt)],
                                           after: ["cancelled_at": .instant(now)]),
                            actor: actor, reason: reason, at: now)
        return .success(request)
    }

    /// The student's pending request, nil when none; `unknown_student` for an unknown or erased student.
    public func pendingErasureRequest(studentId: String) async throws -> Result<ErasureRequestRecord?, PrivacyRefusal> {
        try await engine.read { db in
            guard try Self.livingStudent(db, studentId) != nil else { return .failure(.unknownStudent(studentId)) }
            return .success(try Self.pendingErasureRequest(db, studentId: studentId))
        }
    }

    static func pendingErasureRequest(_ db: SQLSession, studentId: String) throws -> ErasureRequestRecord? {
        try ErasureRequestRecord.fetchOne(db, where: "studentId = ? AND cancelledAt IS NULL", [studentId])
    }

    /// Every pending request, the earliest due first (`tilawa erasure-requests`).
    public func pendingErasureRequestsNow() throws -> [ErasureRequestRecord] {
        try engine.read { db in try ErasureRequestRecord.fetchAll(db, where: "cancelledAt IS NULL", orderBy: "dueAt, id") }
    }

    /// The students whose pending request is due at `now`, the earliest due first.
    public func dueErasureRequests(now: Date) async throws -> [String] {
        try await engine.read { db in
            try String.fetchAll(db, sql: "SELECT studentId FROM erasureRequest WHERE cancelledAt IS NULL AND dueAt <= ? ORDER BY dueAt, id",
                                arguments: [now])
        }
    }

    /// Carries out the student's request if it is still pending and due at `now`: the erasure
    /// `tilawa erase` makes (forced: the student asked, whatever their enrolment), audited as
    /// `erasureRequestActor`, which removes the request with the rest. Nil when there is nothing
    /// to do: cancelled meanwhile, or carried out already — by another node too (one
    /// transaction checks and erases: of two nodes racing, the second finds nothing). The
    /// caller removes the returned files after the commit.
    public func carryOutErasureRequest(studentId: String, now: Date) async throws -> Erasure? {
        try await immediateWrite { db in
            guard let request = try ErasureRequestRecord.fetchOne(
                db, where: "studentId = ? AND cancelledAt IS NULL AND dueAt <= ?", [studentId, now]) else { return nil }
            let reason = "asked for by \(request.requestedBy) on \(request.requestedAt.formatted(.iso8601)), due \(request.dueAt.formatted(.iso8601))"
            switch try Self.erase(db, studentId: studentId, force: true, by: Self.erasureRequestActor, reason: reason, now: now) {
            case let .success(erasure):
                return erasure
            case .failure:
                // No such student any more: the request names no one; it goes so it is not tried for ever.
                try db.execute(sql: "DELETE FROM erasureRequest WHERE studentId = ?", arguments: [studentId])
                return nil
            }
        }
    }

    /// `erasure_requested` for operations (inside the request's transaction): the student's
    /// event, so an erasure takes it with the rest, but for the `ops` queue only.
    static func recordErasureRequested(_ db: SQLSession, student: StudentRecord, request: ErasureRequestRecord) throws {
        let id = IdentifierGenerator.make("evt", now: request.requestedAt)
        let message = StaffMessages.erasureRequested(student: student.name, due: request.dueAt, zone: try programmeZone(db))
        var payload = EventPayload(
            id: id, type: EventType.erasureRequested.rawValue, recipient: EventRecipient.ops.role, recipientId: nil, studentId: student.id,
            occurredAt: request.requestedAt, week: nil, submissionId: nil, feedbackId: nil, coachName: nil, message: message.text,
            link: DeepLink.operationsStatus.absoluteString, extra: nil)
        payload.messageKey = message.key
        payload.params = message.params
        payload.push = pushes(.erasureRequested, to: .ops)
        var event = EventRecord(id: id, studentId: student.id, type: EventType.erasureRequested.rawValue, payload: try payload.jsonData(),
                                occurredAt: request.requestedAt, recipient: .ops)
        try insertEvent(db, &event)
    }
}
