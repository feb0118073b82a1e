import Foundation
import GRDB
import TilawaQuran
import TilawaCore

extension AppDatabase {
    /// Upserts the programme files in one transaction: all of it or nothing.
    ///
    /// Students may refer to coaches, levels and semesters from this import or from an
    /// earlier one; the check runs inside the transaction, against what the database will
    /// hold. Importing the same files twice changes nothing. Nothing is ever deleted: a
    /// student missing from a later file keeps their history.
    ///
    /// Each student row is an enrolment: a row for a semester the student has no enrolment
    /// in adds one (and never touches another semester's); a row for an existing one may
    /// change the coach (kept in `enrolmentChange`) while its semester is open, and is
    /// refused with `semester_closed` once it has closed; a row that would change the level of
    /// an enrolment with weekly or end-of-course recordings is refused `already_placed` (a
    /// level change mid-semester is a back-office operation). An empty level and coach makes a
    /// pending enrolment; it never undoes a placement already recorded. A new placed
    /// enrolment of a semester not yet closed sends `enrolled`.
    ///
    /// A row naming a student in the erasure ledger, or carrying an erased student's sign-in
    /// subject under another id, is skipped (`summary.skippedErased`): an erasure is final, and
    /// a routine import of an older students.csv must not undo it. An erased id in
    /// `allowErased` is re-admitted instead, as a new student (`readmit`).
    ///
    /// `photos` are the coaches' photos already checked and stored in the state directory
    /// (`CoachPhoto.store`), by coach id; a coach of the programme file without one has none.
    public func importRoster(program: ProgramFile?, students: [StudentRow], studentsSource: String, photos: [String: StoredPhoto] = [:],
                             allowErased: Set<String> = [], now: Date) throws -> RosterImportSummary {
        try immediateWrite { db in
            var summary = RosterImportSummary()
            if let program {
                for semester in program.semesters {
                    try SemesterRecord(
                        id: semester.id.rawValue, name: semester.name, startDate: semester.start.description,
                        timeZone: program.timeZone.identifier, weekCount: ProgramFile.weekCount,
                        catchUpGraceDays: program.catchUpGraceDays
                    ).upsert(db)
                    summary.semesters += 1
                }
                for coach in program.coaches {
                    var record = CoachRecord(id: coach.id.rawValue, name: coach.name, email: coach.email, placing: coach.places,
                                             gender: coach.gender, bio: coach.bio)
                    let photo = photos[coach.id.rawValue]
                    record.photoPath = photo?.path
                    record.photoType = photo?.mediaType
                    record.photoSHA256 = photo?.sha256
                    record.subject = coach.subject
                    if let subject = coach.subject, let holder = try Self.subjectHolder(db, subject, except: coach.id.rawValue) {
                        throw RosterError(.duplicateSubject, source: "the programme file", line: nil,
                                          "coach \(coach.id) has the subject of \(holder); each person signs in as themselves")
                    }
                    try record.upsert(db)
                    summary.coaches += 1
                }
                try Self.setSameGenderCoaching(db, program.sameGenderCoaching, now: now)
                for (position, level) in program.levels.enumerated() {
                    try LevelRecord(
                        id: level.id, name: level.name, position: position, eocOpensWeek: level.eoc.opensWeek,
                        eocTitle: level.eoc.title, eocPassage: level.eoc.passage, eocArabic: level.eoc.arabic,
                        eocCovers: level.eoc.covers, eocAyahs: level.eoc.ayahs.isEmpty ? nil : level.eoc.ayahs.listDescription
                    ).upsert(db)
                    summary.levels += 1
                    for week in level.weeks {
                        try CurriculumWeekRecord(levelId: level.id, week: week.week, title: week.title, passage: week.passage,
                                                 ayahs: week.ayahs.isEmpty ? nil : week.ayahs.listDescription).upsert(db)
                        summary.curriculumWeeks += 1
                    }
                }
            }
            if !students.isEmpty {
                try RosterValidator.validate(
                    students: students,
                    coaches: Set(try String.fetchAll(db, sql: "SELECT id FROM coach")),
                    levels: Set(try String.fetchAll(db, sql: "SELECT id FROM level")),
                    semesters: Set(try String.fetchAll(db, sql: "SELECT id FROM semester")),
                    source: studentsSource)
                var ledger = try ErasureLedger(db)
                rows: for row in students {
                    // The erasure ledger is final: a routine import never brings an erased
                    // student's name, subject, gender or zone back (the row is skipped and said),
                    // unless the operator re-admits that erased id as a new student.
                    // Every erased id the row matches must be allowed before any is re-admitted:
                    // a row half re-admitted would leave its id neither erased nor imported.
                    let matches = ledger.matches(id: row.id.rawValue, subject: row.subject)
                    if let refused = matches.first(where: { !allowErased.contains($0) }) {
                        summary.skippedErased.append(.init(id: row.id.rawValue, line: row.line,
                                                           subjectOf: refused == row.id.rawValue ? nil : refused))
                        continue rows
                    }
                    for erased in matches {
                        let former = try Self.readmit(db, erasedId: erased, as: row.id.rawValue, now: now)
                        summary.readmitted.append(.init(id: row.id.rawValue, line: row.line, erasedId: erased, formerRecords: former))
                        ledger.forget(erased)
                    }
                    // A row naming the subject of a student the identity provider provisioned
                    // (SCIM) under another id is that student: the subject joins them, and the
                    // roster gives the programme's facts (level, coach, semester) to their row.
                    var studentId = row.id.rawValue
                    if let subject = row.subject, try !StudentRecord.exists(db, key: studentId),
                       let provisioned = try Self.provisionedStudent(db, subject: subject) {
                        studentId = provisioned
                        summary.joined.append(.init(id: row.id.rawValue, line: row.line, studentId: provisioned))
                    }
                    // An empty gender, time_zone or date_of_birth cell keeps the stored one; the roster
                    // never overwrites a zone the student chose; preferences stay as they are.
                    // The name is the identity provider's when it gave one (SCIM names the person).
                    var student = try StudentRecord.fetchOne(db, key: studentId) ?? StudentRecord(id: studentId, name: row.name)
                    if try !Self.isNamedByProvider(db, studentId: studentId) { student.name = row.name }
                    if let subject = row.subject {
                        if let holder = try Self.subjectHolder(db, subject, except: studentId) {
                            throw RosterError(.duplicateSubject, source: studentsSource, line: row.line,
                                              "student \(row.id) has the subject of \(holder); each person signs in as themselves")
                        }
                        student.subject = subject
                    }
                    student.gender = row.gender ?? student.gender
                    student.dateOfBirth = row.dateOfBirth?.description ?? student.dateOfBirth
                    if let zone = row.timeZone, [nil, "roster"].contains(student.timeZoneSetBy) {
                        student.timeZone = zone
                        student.timeZoneSetBy = "roster"
                    }
                    try student.upsert(db)
                    if let coach = row.coachID?.rawValue, let refusal = try Self.genderRefusal(db, studentId: studentId, coachId: coach) {
                        throw RosterError(.genderMismatch, source: studentsSource, line: row.line, refusal)
                    }
                    try Self.importEnrolment(db, row: row, studentId: studentId, source: studentsSource, now: now)
                    summary.students += 1
                }
            }
            return summary
        }
    }

    /// The row's enrolment of `studentId` (the row's own id, or the provisioned student it joined).
    private static func importEnrolment(_ db: SQLSession, row: StudentRow, studentId student: String, source: String, now: Date) throws {
        let semesterId = row.semesterID.rawValue
        guard let semester = try SemesterRecord.fetchOne(db, key: semesterId) else { return }
        let closed = try semester.calendar().isClosed(at: now)
        let level = row.level
        let coach = row.coachID?.rawValue
        guard var enrolment = try StudentContext.enrolment(db, studentId: student, semesterId: semesterId) else {
            var created = EnrolmentRecord(
                studentId: student, semesterId: semesterId, levelId: level, coachId: coach, createdAt: now,
                placedAt: level == nil ? nil : now, placedBy: level == nil ? nil : "roster")
            // A roster row owes from week 1 unless it says otherwise: importing it late excuses no one.
            created.owesFromWeek = row.owesFromWeek ?? 1
            try created.insert(db)
            try recordEnrolmentChange(db, created, .enrolled, at: now, by: "roster")
            if created.isPlaced, !closed { try recordEnrolled(db, created, now: now) }
            return
        }
        // A row's owes_from_week changes what the enrolment owes; an empty cell keeps it.
        if let owes = row.owesFromWeek, owes != enrolment.owesFromWeek, !closed {
            enrolment.owesFromWeek = owes
            try enrolment.update(db)
        }
        // An unplaced row never undoes a placement, and an identical row changes nothing.
        guard let level, let coach, level != enrolment.levelId || coach != enrolment.coachId else { return }
        guard !closed else {
            throw RosterError(
                .semesterClosed, source: source, line: row.line,
                "student \(student) in semester \(RosterText.quoted(semesterId)) would change from level \(enrolment.levelId ?? "none") / coach \(enrolment.coachId ?? "none") to \(level) / \(coach), but the semester has closed and its enrolments are final; enrol them in a later semester instead")
        }
        if level != enrolment.levelId, let enrolmentId = enrolment.id {
            let recordings = try recordingCount(db, enrolmentId: enrolmentId)
            guard recordings == 0 else {
                throw RosterError(
                    .alreadyPlaced, source: source, line: row.line,
                    "student \(student) in semester \(RosterText.quoted(semesterId)) is placed at level \(enrolment.levelId ?? "none") with coach \(enrolment.coachId ?? "none") and has \(recordings) weekly or end-of-course recording\(recordings == 1 ? "" : "s") there, so the row cannot move them to level \(level); keep level \(enrolment.levelId ?? "none") on this row (the coach may change) and change the level as a back-office operation")
            }
        }
        let wasPlaced = enrolment.isPlaced
        let change: EnrolmentChangeRecord.Change = !wasPlaced ? .placed : (level != enrolment.levelId ? .placed : .coachChanged)
        enrolment.levelId = level
        enrolment.coachId = coach
        if change == .placed {
            enrolment.placedAt = now
            enrolment.placedBy = "roster"
        }
        try enrolment.update(db)
        try recordEnrolmentChange(db, enrolment, change, at: now, by: "roster")
        if !wasPlaced { try recordEnrolled(db, enrolment, now: now) }
    }

    static func recordEnrolmentChange(
        _ db: SQLSession, _ enrolment: EnrolmentRecord, _ change: EnrolmentChangeRecord.Change, at: Date, by: String
    ) throws {
        guard let id = enrolment.id else { return }
        var record = EnrolmentChangeRecord(enrolmentId: id, change: change, levelId: enrolment.levelId, coachId: enrolment.coachId,
                                           changedAt: at, changedBy: by)
        try record.insert(db)
    }

    /// `enrolled`: welcome to the level, the coach, when week 1 unlocks.
    static func recordEnrolled(_ db: SQLSession, _ enrolment: EnrolmentRecord, now: Date) throws {
        guard let levelId = enrolment.levelId, let coachId = enrolment.coachId,
              let level = try LevelRecord.fetchOne(db, key: levelId), let coach = try CoachRecord.fetchOne(db, key: coachId),
              let semester = try SemesterRecord.fetchOne(db, key: enrolment.semesterId) else { return }
        let calendar = try semester.calendar()
        let zone = try studentZone(db, studentId: enrolment.studentId, programme: calendar.timeZone)
        try recordEvent(
            db, type: .enrolled, studentId: enrolment.studentId, levelId: levelId, slot: .week(1), occurredAt: now,
            submissionId: nil, feedbackId: nil, coachName: coach.name,
            message: StudentMessages.enrolled(
                levelName: level.name, coachName: coach.name, semesterName: semester.name,
                weekOneUnlocks: calendar.unlock(week: 1), zone: zone),
            extra: .init(level: .init(id: level.id, name: level.name), coach: .init(id: coach.id, name: coach.name),
                         semesterId: semester.id))
    }

    /// Who else holds `subject` ("student S1002", "coach C01"), other than `except`.
    static func subjectHolder(_ db: SQLSession, _ subject: String, except id: String) throws -> String? {
        if let other = try String.fetchOne(db, sql: "SELECT id FROM student WHERE subject = ? AND id != ?", arguments: [subject, id]) {
            return "student \(other)"
        }
        if let other = try String.fetchOne(db, sql: "SELECT id FROM coach WHERE subject = ? AND id != ?", arguments: [subject, id]) {
            return "coach \(other)"
        }
        return nil
    }

    /// The migration "coaches: photo". Never edited once landed.
    static func migrateCoachPhoto(_ db: Database) throws {
        try db.alter(table: "coach") { t in
            t.add(column: "photoPath", .text)
            t.add(column: "photoType", .text)
            t.add(column: "photoSHA256", .text)
        }
    }

    /// The photos every coach row names (relative to the state directory), for removing
    /// the files no coach uses any more after an import.
    public func coachPhotoPaths() throws -> Set<String> {
        try engine.read { db in Set(try String.fetchAll(db, sql: "SELECT photoPath FROM coach WHERE photoPath IS NOT NULL")) }
    }

    /// A coach's photo: where it is and what it is; nil for an unknown coach or one without.
    public func coachPhoto(coachId: String) async throws -> StoredPhoto? {
        try await engine.read { db in
            guard let coach = try CoachRecord.fetchOne(db, key: coachId), let path = coach.photoPath, let type = coach.photoType,
                  let sha = coach.photoSHA256 else { return nil }
            return StoredPhoto(path: path, mediaType: type, sha256: sha)
        }
    }

    /// The migration "people: gender and bio": same-gender coaching's genders and the coach's
    /// introduction. Never edited once landed.
    static func migrateGenderAndBio(_ db: Database) throws {
        try db.alter(table: "coach") { t in
            t.add(column: "gender", .text)
            t.add(column: "bio", .text)
        }
        try db.alter(table: "student") { t in
            t.add(column: "gender", .text)
        }
    }

    /// Records `same_gender_coaching` from the programme file (in `meta`).
    static func setSameGenderCoaching(_ db: SQLSession, _ on: Bool, now: Date) throws {
        try db.execute(sql: """
            INSERT INTO meta (key, value, updatedAt) VALUES ('same_gender_coaching', ?, ?)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt
            """, arguments: [on ? 1 : 0, now])
    }

    /// Why `studentId` may not be coached by `coachId` under same-gender coaching (one sentence),
    /// or nil when they may: the setting is off, a gender is unknown, or both are the same.
    static func genderRefusal(_ db: SQLSession, studentId: String, coachId: String) throws -> String? {
        guard try Int.fetchOne(db, sql: "SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'same_gender_coaching'") == 1 else { return nil }
        let student = try String.fetchOne(db, sql: "SELECT gender FROM student WHERE id = ?", arguments: [studentId])
        let coach = try String.fetchOne(db, sql: "SELECT gender FROM coach WHERE id = ?", arguments: [coachId])
        guard !Gender.compatible(student: student, coach: coach) else { return nil }
        return "student \(RosterText.quoted(studentId)) (\(student ?? "")) cannot be coached by coach \(RosterText.quoted(coachId)) (\(coach ?? "")) while same-gender coaching is on (same_gender_coaching in program.yaml); choose a \(student ?? "") coach"
    }
}

/// A coach's photo as the state directory holds it.
public struct StoredPhoto: Sendable, Equatable {
    /// Relative to the state directory: `photos/<sha256>.<ext>`.
    public let path: String
    public let mediaType: String
    public let sha256: String

    public init(path: String, mediaType: String, sha256: String) {
        self.path = path
        self.mediaType = mediaType
        self.sha256 = sha256
    }
}
