import Foundation
import GRDB
import TilawaCore

/// A student's own settings (DESIGN §14): their time zone and which categories push.
public struct StudentPreferences: Sendable, Equatable {
    /// The zone in effect (theirs, else the programme's current semester's).
    public var timeZone: String
    /// Whether `timeZone` is the student's own (`student`), the roster's (`roster`) or the
    /// programme's (`programme`).
    public var timeZoneSource: String
    public var push: [PushCategory: Bool]
    /// The student's own quiet hours (`HH:MM-HH:MM` or `none`), nil when they follow the programme's.
    public var quietHours: String?
    /// The student's own reminder time (`HH:MM`), nil when they follow the programme's.
    public var reminderTime: String?
}

/// What a `PUT …/preferences` changes; nil members are left as they are.
public struct PreferencesChange: Sendable, Equatable {
    /// A zone to set; `.some(nil)` goes back to the roster's or programme's zone.
    public var timeZone: String??
    public var push: [PushCategory: Bool]
    /// Quiet hours to set (`HH:MM-HH:MM` or `none`); `.some(nil)` goes back to the programme's.
    public var quietHours: String??
    /// A reminder time to set (`HH:MM`); `.some(nil)` goes back to the programme's.
    public var reminderTime: String??

    public init(timeZone: String?? = nil, push: [PushCategory: Bool] = [:], quietHours: String?? = nil, reminderTime: String?? = nil) {
        self.timeZone = timeZone
        self.push = push
        self.quietHours = quietHours
        self.reminderTime = reminderTime
    }
}

extension AppDatabase {
    /// The migration "students: time zone and push preferences". Never edited once landed.
    static func migrateStudentPreferences(_ db: Database) throws {
        try db.alter(table: "student") { t in
            t.add(column: "timeZone", .text)
            t.add(column: "timeZoneSetBy", .text)
            t.add(column: "pushFeedback", .boolean).notNull().defaults(to: true)
            t.add(column: "pushDeadlines", .boolean).notNull().defaults(to: true)
            t.add(column: "pushAnnouncements", .boolean).notNull().defaults(to: true)
            t.add(column: "pushQuestions", .boolean).notNull().defaults(to: true)
        }
    }

    /// The zone a student's messages and reminders use: their own, else `programme`.
    static func studentZone(_ db: SQLSession, studentId: String, programme: TimeZone) throws -> TimeZone {
        try StudentRecord.fetchOne(db, key: studentId)?.zone(or: programme) ?? programme
    }

    /// The zone a student's messages use: their own, else `programme`.
    public func studentZone(studentId: String, programme: TimeZone) async throws -> TimeZone {
        try await engine.read { db in try Self.studentZone(db, studentId: studentId, programme: programme) }
    }

    /// A student's preferences, or nil for an unknown student.
    public func preferences(studentId: String, now: Date) async throws -> StudentPreferences? {
        try await engine.read { db in try Self.preferences(db, studentId: studentId, now: now) }
    }

    /// Changes a student's preferences in one transaction and answers the result; nil for an
    /// unknown student. A zone set here (`by` the student or ops) is the student's own: a
    /// roster import never overwrites it (clearing it hands the choice back to the roster).
    public func updatePreferences(studentId: String, change: PreferencesChange, by: String, now: Date) async throws -> StudentPreferences? {
        try await immediateWrite { db in
            guard var student = try StudentRecord.fetchOne(db, key: studentId) else { return nil }
            if let zone = change.timeZone {
                student.timeZone = zone
                student.timeZoneSetBy = zone == nil ? nil : by
            }
            for (category, on) in change.push { student.setPush(category, on) }
            if let quiet = change.quietHours { student.quietHours = quiet }
            if let time = change.reminderTime { student.reminderTime = time }
            try student.update(db)
            return try Self.preferences(db, studentId: studentId, now: now)
        }
    }

    private static func preferences(_ db: SQLSession, studentId: String, now: Date) throws -> StudentPreferences? {
        guard let student = try StudentRecord.fetchOne(db, key: studentId) else { return nil }
        let programme = try StudentContext.currentEnrolment(db, studentId: studentId, now: now)
            .flatMap { try SemesterRecord.fetchOne(db, key: $0.semesterId) }
            .flatMap { TimeZone(identifier: $0.timeZone) }
        let own = student.timeZone.flatMap(TimeZone.init(identifier:))
        return StudentPreferences(
            timeZone: (own ?? programme ?? .gmt).identifier,
            timeZoneSource: own == nil ? "programme" : (student.timeZoneSetBy ?? "roster"),
            push: Dictionary(uniqueKeysWithValues: PushCategory.allCases.map { ($0, student.wantsPush($0)) }),
            quietHours: student.quietHours, reminderTime: student.reminderTime)
    }

    /// The migration "students: own quiet hours and reminder time". Never edited once landed.
    static func migrateStudentQuietHours(_ db: Database) throws {
        try db.alter(table: "student") { t in
            t.add(column: "quietHours", .text)
            t.add(column: "reminderTime", .text)
        }
    }
}

extension AppDatabase {
    /// The migration "people: subjects": the identity provider's `sub` of a student (roster
    /// column) or a coach (program.yaml), unique across both. Never edited once landed.
    static func migrateSubjects(_ db: Database) throws {
        try db.alter(table: "student") { t in t.add(column: "subject", .text) }
        try db.alter(table: "coach") { t in t.add(column: "subject", .text) }
        try db.create(index: "student_subject", on: "student", columns: ["subject"], unique: true, condition: Column("subject") != nil)
        try db.create(index: "coach_subject", on: "coach", columns: ["subject"], unique: true, condition: Column("subject") != nil)
    }

    /// Who the identity provider's `sub` is: a student's or a coach's id (`student`/`coach`),
    /// or nil. With `subjectIsId`, a `sub` equal to an id with no subject of its own maps too.
    public func subjectOwner(_ subject: String, subjectIsId: Bool) async throws -> (role: String, id: String)? {
        try await subjectOwnerStanding(subject, subjectIsId: subjectIsId).map { (role: $0.role, id: $0.id) }
    }

    /// `subjectOwner` with the owner's `tokensValidAfter` (sign-out everywhere), read in the
    /// same transaction: what a provider's token is checked against.
    public func subjectOwnerStanding(_ subject: String, subjectIsId: Bool) async throws -> SubjectOwner? {
        try await engine.read { db in
            func owner(_ role: String, _ sql: String) throws -> SubjectOwner? {
                guard let row = try Row.fetchOne(db, sql: sql, arguments: [subject]) else { return nil }
                let id: String = row["id"]
                return SubjectOwner(role: role, id: id, tokensValidAfter: row["tokensValidAfter"] as Date?,
                                    deprovisioned: try Self.isDeprovisioned(db, role: role, id: id))
            }
            if let found = try owner("student", "SELECT id, tokensValidAfter FROM student WHERE subject = ?") { return found }
            if let found = try owner("coach", "SELECT id, tokensValidAfter FROM coach WHERE subject = ?") { return found }
            guard subjectIsId else { return nil }
            if let found = try owner("student", "SELECT id, tokensValidAfter FROM student WHERE id = ? AND subject IS NULL AND erasedAt IS NULL") {
                return found
            }
            return try owner("coach", "SELECT id, tokensValidAfter FROM coach WHERE id = ? AND subject IS NULL")
        }
    }
}

/// Whom the identity provider's `sub` names (`AppDatabase.subjectOwnerStanding`).
public struct SubjectOwner: Sendable, Equatable {
    /// `student` or `coach`.
    public var role: String
    public var id: String
    /// Their tokens issued at or before this instant's second are refused (sign-out everywhere).
    public var tokensValidAfter: Date?
    /// The identity provider turned them off (SCIM): no token of theirs is accepted.
    public var deprovisioned = false
}
