import Foundation
import GRDB
import TilawaCore

/// What recording a consent did: the consent as stored, and whether it is new (the same
/// consent again writes nothing and gives back the current one).
public struct ConsentOutcome: Sendable, Equatable {
    public var consent: ConsentRecord
    public var created: Bool
}

extension AppDatabase {
    /// Records a consent to the recording policy (DESIGN §16) in one transaction under the
    /// student's lock, the one their admissions take: an upload judged at the same moment sees
    /// the consent before or after, never half. `terms` decide whether it may be recorded (a
    /// minor's needs a guardian's, by the date of birth on the student's row and `timeZone`'s
    /// calendar; `privacy.policy_version` must match); the same consent as the current one is
    /// given back unchanged (no second row, no audit); another replaces the current one (closed
    /// at `now`, by `actor`). Audited `consent_given` with `actor` and `reason` (the guardian's
    /// name is kept on the consent only, never in the audit log, which outlives an erasure).
    public func recordConsent(
        studentId: String, version: String, givenBy: ConsentGiver, guardianName: String?, terms: ConsentTerms, timeZone: TimeZone,
        by actor: String, reason: String, now: Date
    ) async throws -> Result<ConsentOutcome, PrivacyRefusal> {
        try await engine.lockedWrite(.student(studentId)) { db in
            try Self.recordConsent(db, studentId: studentId, version: version, givenBy: givenBy, guardianName: guardianName, terms: terms,
                                   timeZone: timeZone, by: actor, reason: reason, now: now)
        }
    }

    /// `recordConsent` for the command line.
    public func recordConsentNow(
        studentId: String, version: String, givenBy: ConsentGiver, guardianName: String?, terms: ConsentTerms, timeZone: TimeZone,
        by actor: String, reason: String, now: Date
    ) throws -> Result<ConsentOutcome, PrivacyRefusal> {
        try engine.lockedWrite(.student(studentId)) { db in
            try Self.recordConsent(db, studentId: studentId, version: version, givenBy: givenBy, guardianName: guardianName, terms: terms,
                                   timeZone: timeZone, by: actor, reason: reason, now: now)
        }
    }

    static func recordConsent(
        _ db: SQLSession, studentId: String, version: String, givenBy: ConsentGiver, guardianName: String?, terms: ConsentTerms,
        timeZone: TimeZone, by actor: String, reason: String, now: Date
    ) throws -> Result<ConsentOutcome, PrivacyRefusal> {
        guard let student = try livingStudent(db, studentId) else { return .failure(.unknownStudent(studentId)) }
        // A guardian's name belongs to a guardian's consent only.
        let guardian = givenBy == .guardian ? guardianName?.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        if let refusal = terms.refusal(version: version, givenBy: givenBy, guardianName: guardian, dateOfBirth: student.birthDate,
                                       now: now, timeZone: timeZone) {
            return .failure(refusal)
        }
        var before: [String: MessageValue]?
        if var current = try currentConsent(db, studentId: studentId) {
            if current.sameTerms(version: version, givenBy: givenBy, guardianName: guardian) {
                return .success(ConsentOutcome(consent: current, created: false))
            }
            before = auditFields(current)
            current.withdrawnAt = now
            current.withdrawnBy = actor
            try current.update(db)
        }
        var consent = ConsentRecord(studentId: studentId, version: version, givenBy: givenBy, guardianName: guardian, givenAt: now)
        try consent.insert(db)
        _ = try recordAudit(db, AuditDraft(action: "consent_given", studentId: studentId, before: before, after: auditFields(consent)),
                            actor: actor, reason: reason, at: now)
        return .success(ConsentOutcome(consent: consent, created: true))
    }

    /// Withdraws the student's current consent (it stays as history, closed at `now` by
    /// `actor`), audited `consent_withdrawn`; `no_consent` when there is none. Under the
    /// student's lock, as `recordConsent`.
    public func withdrawConsent(studentId: String, by actor: String, reason: String, now: Date) async throws -> Result<ConsentRecord, PrivacyRefusal> {
        try await engine.lockedWrite(.student(studentId)) { db in
            try Self.withdrawConsent(db, studentId: studentId, by: actor, reason: reason, now: now)
        }
    }

    /// `withdrawConsent` for the command line.
    public func withdrawConsentNow(studentId: String, by actor: String, reason: String, now: Date) throws -> Result<ConsentRecord, PrivacyRefusal> {
        try engine.lockedWrite(.student(studentId)) { db in try Self.withdrawConsent(db, studentId: studentId, by: actor, reason: reason, now: now) }
    }

    static func withdrawConsent(_ db: SQLSession, studentId: String, by actor: String, reason: String, now: Date) throws
        -> Result<ConsentRecord, PrivacyRefusal>
    {
        guard try livingStudent(db, studentId) != nil else { return .failure(.unknownStudent(studentId)) }
        guard var consent = try currentConsent(db, studentId: studentId) else { return .failure(.noConsent(studentId)) }
        let before = auditFields(consent)
        consent.withdrawnAt = now
        consent.withdrawnBy = actor
        try consent.update(db)
        _ = try recordAudit(db, AuditDraft(action: "consent_withdrawn", studentId: studentId, before: before, after: ["withdrawn_at": .instant(now)]),
                            actor: actor, reason: reason, at: now)
        return .success(consent)
    }

    /// Every consent of the student, oldest first (the current one, if any, is the one not
    /// withdrawn); `unknown_student` for an unknown or erased student.
    public func consents(studentId: String) async throws -> Result<[ConsentRecord], PrivacyRefusal> {
        try await engine.read { db in try Self.consents(db, studentId: studentId) }
    }

    /// `consents` for the command line.
    public func consentsNow(studentId: String) throws -> Result<[ConsentRecord], PrivacyRefusal> {
        try engine.read { db in try Self.consents(db, studentId: studentId) }
    }

    static func consents(_ db: SQLSession, studentId: String) throws -> Result<[ConsentRecord], PrivacyRefusal> {
        guard try livingStudent(db, studentId) != nil else { return .failure(.unknownStudent(studentId)) }
        return .success(try ConsentRecord.fetchAll(db, where: "studentId = ?", [studentId], orderBy: "givenAt, id"))
    }

    /// The student's current consent, inside a transaction.
    static func currentConsent(_ db: SQLSession, studentId: String) throws -> ConsentRecord? {
        try ConsentRecord.fetchOne(db, where: "studentId = ? AND withdrawnAt IS NULL", [studentId])
    }

    /// The student's row, unless they are unknown or erased.
    static func livingStudent(_ db: SQLSession, _ studentId: String) throws -> StudentRecord? {
        guard let student = try StudentRecord.fetchOne(db, key: studentId), student.erasedAt == nil,
              try !isErased(db, studentId: studentId) else { return nil }
        return student
    }

    /// What the admission of a recording reads of the student's privacy (inside its
    /// transaction): a pending erasure request, and — when `terms` require one — whether a
    /// consent that counts is current.
    static func privacyStanding(_ db: SQLSession, studentId: String, terms: ConsentTerms) throws -> PrivacyStanding {
        var standing = PrivacyStanding()
        if let row = try Row.fetchOne(db, sql: "SELECT requestedAt, dueAt FROM erasureRequest WHERE studentId = ? AND cancelledAt IS NULL",
                                      arguments: [studentId]) {
            standing.erasureRequested = .init(requestedAt: row["requestedAt"], dueAt: row["dueAt"])
        }
        if terms.required {
            let version = try String.fetchOne(db, sql: "SELECT version FROM consent WHERE studentId = ? AND withdrawnAt IS NULL",
                                              arguments: [studentId])
            if !(version.map { terms.counts(version: $0) } ?? false) { standing.consentMissing = terms }
        }
        return standing
    }

    /// A consent as the audit log keeps it: what was agreed and by whom, not the guardian's name.
    private static func auditFields(_ consent: ConsentRecord) -> [String: MessageValue] {
        ["version": .text(consent.version), "given_by": .text(consent.givenBy.rawValue), "given_at": .instant(consent.givenAt)]
    }
}
