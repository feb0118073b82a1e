import Foundation
import GRDB
import TilawaCore

/// Who a provisioned user is in Tilawa's records, and what deprovisioning does to them.
extension AppDatabase {
    /// The audit log's actor for what the identity provider's SCIM client did.
    public static let scimActor = "scim"

    /// The student or coach a new SCIM user of `owner` with `subject` is: their id, nil for a
    /// student to create; or why there is none.
    ///
    /// A student is the one whose `subject` it is (a roster row's); a subject that is a coach's,
    /// or an erased student's, is refused. A coach exists only in the programme file: the one
    /// with this subject, or else the one with this id and no subject of their own.
    static func provisionedPerson(_ db: SQLSession, owner: Device.Owner, subject: String) throws -> Result<String?, SCIMRefusal> {
        switch owner {
        case .student:
            if let id = try String.fetchOne(db, sql: "SELECT id FROM student WHERE subject = ?", arguments: [subject]) {
                if try isErased(db, studentId: id) { return .failure(.erasedSubject) }
                return .success(id)
            }
            if let coach = try String.fetchOne(db, sql: "SELECT id FROM coach WHERE subject = ?", arguments: [subject]) {
                return .failure(.subjectOfOther("coach \(coach)"))
            }
            // A student with no subject of their own signs in by their id (`oidc.subject_is_id`):
            // a userName that is that id is that student, never a second one taking their sign-ins.
            if let id = try String.fetchOne(db, sql: "SELECT id FROM student WHERE id = ? AND subject IS NULL", arguments: [subject]) {
                if try isErased(db, studentId: id) { return .failure(.erasedSubject) }
                return .success(id)
            }
            if try isErasedSubject(db, subject) { return .failure(.erasedSubject) }
            return .success(nil)
        case .coach:
            if let id = try String.fetchOne(db, sql: "SELECT id FROM coach WHERE subject = ?", arguments: [subject]) { return .success(id) }
            if let id = try String.fetchOne(db, sql: "SELECT id FROM coach WHERE id = ? AND subject IS NULL", arguments: [subject]) {
                return .success(id)
            }
            if let student = try String.fetchOne(db, sql: "SELECT id FROM student WHERE subject = ?", arguments: [subject]) {
                return .failure(.subjectOfOther("student \(student)"))
            }
            return .failure(.unknownCoach(subject))
        }
    }

    /// The student other than `id` whose sign-in subject is `subject` and whose provisioned user
    /// was deleted: a user that no longer exists, whose userName another user may take (RFC 7644
    /// §3.6). Nil when the subject is nobody's, or a roster student's, a coach's, or a user's that
    /// exists (active or not).
    static func deletedStudent(_ db: SQLSession, subject: String, except id: String) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT student.id FROM student JOIN scimUser ON scimUser.role = 'student' AND scimUser.id = student.id
            WHERE student.subject = ? AND student.id <> ? AND scimUser.deletedAt IS NOT NULL
            """, arguments: [subject, id])
    }

    /// Whether `subject` was an erased student's (the ledger keeps its digest): an erasure is final.
    static func isErasedSubject(_ db: SQLSession, _ subject: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM erasure WHERE subjectDigest = ? AND readmittedAt IS NULL)",
                          arguments: [subjectDigest(subject)]) ?? false
    }

    /// The first student id provisioning gives: `P` and six digits, a shape the programme's
    /// roster ids (`S1001`) do not take, counted on from the highest given so far and past any
    /// id in use (a student's, erased ones included, or a provisioned coach's).
    static let firstProvisionedNumber = 100_001

    static func nextProvisionedStudentId(_ db: SQLSession) throws -> String {
        let numbers = try String.fetchAll(db, sql: "SELECT id FROM student WHERE id LIKE 'P%'").compactMap { id -> Int? in
            guard id.first == "P", id.count == 7 else { return nil }
            return Int(id.dropFirst())
        }
        var next = max(firstProvisionedNumber, (numbers.max() ?? 0) + 1)
        while try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM student WHERE id = :id) OR EXISTS (SELECT 1 FROM erasure WHERE studentId = :id)
                OR EXISTS (SELECT 1 FROM scimUser WHERE id = :id)
            """, arguments: ["id": "P\(next)"]) == true {
            next += 1
        }
        return "P\(next)"
    }

    /// A new provisioned student's enrolment awaiting placement (no level, no coach) in the
    /// semester a newcomer joins: of those not closed, the latest that has started, else the
    /// next to start. None when no semester is open: a roster row or a placement enrols them.
    static func enrolAwaitingPlacement(_ db: SQLSession, studentId: String, by actor: String, now: Date) throws {
        guard let semester = try admissionSemester(db, now: now) else { return }
        var enrolment = EnrolmentRecord(studentId: studentId, semesterId: semester.id, levelId: nil, coachId: nil, createdAt: now)
        try enrolment.insert(db)
        try recordEnrolmentChange(db, enrolment, .enrolled, at: now, by: actor)
    }

    static func admissionSemester(_ db: SQLSession, now: Date) throws -> SemesterRecord? {
        var started: SemesterRecord?
        var upcoming: SemesterRecord?
        for semester in try SemesterRecord.fetchAll(db, orderBy: "startDate") {
            guard let calendar = try? semester.calendar(), !calendar.isClosed(at: now) else { continue }
            if calendar.unlock(week: 1) <= now {
                started = semester
            } else if upcoming == nil {
                upcoming = semester
            }
        }
        return started ?? upcoming
    }

    /// Deprovisioning (`active: false`, `DELETE`): signs the person out everywhere and pauses a
    /// student's current enrolment when it runs — the back office's own pause, with its events
    /// and audit rows — both audited with `actor` (the SCIM client) and `reason`. Answers the
    /// enrolment it paused, for `reprovision` to resume; nil when it paused none (no enrolment,
    /// one paused or left already, a closed semester).
    static func deprovision(_ db: SQLSession, owner: Device.Owner, id: String, by actor: String, reason: String, policy: ProgramPolicy,
                            now: Date) throws -> Int64? {
        _ = try revokeSessions(db, of: owner, id: id, by: actor, reason: reason, now: now)
        guard owner == .student, let enrolment = try StudentContext.currentEnrolment(db, studentId: id, now: now),
              enrolment.state == .active else { return nil }
        switch try apply(db, .changeEnrolment(studentId: id, coachId: nil, levelId: nil, state: .paused), by: actor, reason: reason,
                         policy: policy, now: now) {
        case .success: return enrolment.id
        case .failure: return nil
        }
    }

    /// Provisioning again (`active: true` after false, a deleted user created again): resumes
    /// the enrolment deprovisioning paused, if it is still the current one and still paused; a
    /// pause of the back office's own stays. Signing in again needs nothing: tokens issued from
    /// now on are valid.
    static func reprovision(_ db: SQLSession, owner: Device.Owner, id: String, paused: Int64?, by actor: String, policy: ProgramPolicy,
                            now: Date) throws {
        guard owner == .student, let paused, let enrolment = try StudentContext.currentEnrolment(db, studentId: id, now: now),
              enrolment.id == paused, enrolment.state == .paused else { return }
        _ = try apply(db, .changeEnrolment(studentId: id, coachId: nil, levelId: nil, state: .active), by: actor,
                      reason: reactivatedReason, policy: policy, now: now)
    }

    /// The provisioned student whose subject a roster row names under another id: the row is
    /// that student (the subject joins them), so an import never makes a second one.
    static func provisionedStudent(_ db: SQLSession, subject: String) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT student.id FROM student JOIN scimUser ON scimUser.role = 'student' AND scimUser.id = student.id
            WHERE student.subject = ? AND student.erasedAt IS NULL
            """, arguments: [subject])
    }

    /// Whether the identity provider names this student (a provisioned user that gave a `name`
    /// or a `displayName`): a roster import then keeps that name — SCIM says the person's facts,
    /// the roster the programme's.
    static func isNamedByProvider(_ db: SQLSession, studentId: String) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM scimUser WHERE role = 'student' AND id = ? AND deletedAt IS NULL
                           AND (name IS NOT NULL OR displayName IS NOT NULL))
            """, arguments: [studentId]) ?? false
    }
}
