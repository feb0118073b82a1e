import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Who decided a placement: a coach (who must be allowed to place) or operations.
    public enum Placer: Sendable, Equatable {
        case coach(String)
        case ops

        var audit: String {
            switch self {
            case let .coach(id): "coach:\(id)"
            case .ops: "ops"
            }
        }
    }

    /// Whether `coachId` may place students: one of the placing coaches (`places: true` in
    /// program.yaml), or any coach while none is. False for an unknown coach.
    public func coachMayPlace(coachId: String) async throws -> Bool {
        try await engine.read { db in try Self.mayPlace(db, coachId: coachId) }
    }

    /// Records a placement: the student's enrolment in `semesterId` (default: the current
    /// one at `now`; created if the student has none in that semester) gets `levelId` and
    /// `coachId`, audited with who decided and when, and the student gets `placement_ready`
    /// naming the level and the coach — one transaction. The placement answers the student's
    /// waiting placement assessments (`feedback_ready`; a coach may still reply with audio).
    /// Placing again changes the level or coach (also audited) and tells the student again,
    /// until the enrolment has weekly or end-of-course recordings (`recordingCount`): from
    /// then on the same level and coach again is a no-op (the enrolment as it is, no event, no
    /// audit row) and any other is refused `already_placed`, because the student's recordings
    /// would show another level's titles and the coach who replied would lose their replies.
    /// Such a change is a back-office operation on the enrolment, not a placement.
    public func placeStudent(
        _ studentId: String, levelId: String, coachId: String, semesterId: String?, by placer: Placer, now: Date
    ) async throws -> Result<EnrolmentRecord, PlacementRefusal> {
        try await immediateWrite { db in
            try Self.place(db, studentId, levelId: levelId, coachId: coachId, semesterId: semesterId, by: placer, now: now)
        }
    }

    /// `placeStudent` for the command line.
    public func placeStudentNow(
        _ studentId: String, levelId: String, coachId: String, semesterId: String?, by placer: Placer, now: Date
    ) throws -> Result<EnrolmentRecord, PlacementRefusal> {
        try immediateWrite { db in
            try Self.place(db, studentId, levelId: levelId, coachId: coachId, semesterId: semesterId, by: placer, now: now)
        }
    }

    static func place(
        _ db: SQLSession, _ studentId: String, levelId: String, coachId: String, semesterId: String?, by placer: Placer, now: Date
    ) throws -> Result<EnrolmentRecord, PlacementRefusal> {
        guard try StudentRecord.exists(db, key: studentId) else { return .failure(.unknownStudent(studentId)) }
        guard let level = try LevelRecord.fetchOne(db, key: levelId) else { return .failure(.unknownLevel(levelId)) }
        guard let coach = try CoachRecord.fetchOne(db, key: coachId) else { return .failure(.unknownCoach(coachId)) }
        if case let .coach(decider) = placer {
            guard try CoachRecord.exists(db, key: decider) else { return .failure(.unknownCoach(decider)) }
            guard try mayPlace(db, coachId: decider) else { return .failure(.notPlacingCoach(decider)) }
        }
        var enrolment: EnrolmentRecord
        if let semesterId {
            guard try SemesterRecord.exists(db, key: semesterId) else { return .failure(.unknownSemester(semesterId)) }
            enrolment = try StudentContext.enrolment(db, studentId: studentId, semesterId: semesterId)
                ?? EnrolmentRecord(studentId: studentId, semesterId: semesterId, levelId: nil, coachId: nil, createdAt: now)
        } else {
            guard let current = try StudentContext.currentEnrolment(db, studentId: studentId, now: now) else {
                return .failure(.unknownStudent(studentId))
            }
            enrolment = current
        }
        guard let semester = try SemesterRecord.fetchOne(db, key: enrolment.semesterId) else {
            return .failure(.unknownSemester(enrolment.semesterId))
        }
        if try semester.calendar().isClosed(at: now) { return .failure(.semesterClosed(semester.id)) }
        if let enrolmentId = enrolment.id {
            let recordings = try recordingCount(db, enrolmentId: enrolmentId)
            if recordings > 0 {
                // A retry of the placement that stands changes nothing; anything else is refused.
                if enrolment.levelId == level.id, enrolment.coachId == coach.id { return .success(enrolment) }
                return .failure(.alreadyPlaced(student: studentId, semester: semester.id, level: enrolment.levelId,
                                               coach: enrolment.coachId, recordings: recordings))
            }
        }
        if let refusal = try genderRefusal(db, studentId: studentId, coachId: coach.id) { return .failure(.genderMismatch(refusal)) }
        let isNew = enrolment.id == nil
        enrolment.levelId = level.id
        enrolment.coachId = coach.id
        // A placement owes from the week it is made in (week 1 before the semester starts):
        // the weeks that passed before it were never the student's to record.
        enrolment.owesFromWeek = try semester.calendar().currentWeek(at: now) ?? 1
        enrolment.placedAt = now
        enrolment.placedBy = placer.audit
        try enrolment.save(db)
        if isNew { try recordEnrolmentChange(db, enrolment, .enrolled, at: now, by: placer.audit) }
        try recordEnrolmentChange(db, enrolment, .placed, at: now, by: placer.audit)
        // The placement is the answer to the student's placement assessment: it leaves the
        // placing coaches' queue and is never overdue.
        try db.execute(sql: """
            UPDATE submission SET state = ? WHERE studentId = ? AND kind = ? AND state IN (?, ?)
            """, arguments: [SubmissionState.feedbackReady.rawValue, studentId, SubmissionKind.assessment.rawValue,
                             SubmissionState.processing.rawValue, SubmissionState.awaitingFeedback.rawValue])
        try recordEvent(
            db, type: .placementReady, studentId: studentId, levelId: level.id, slot: .assessment, occurredAt: now,
            submissionId: nil, feedbackId: nil, coachName: coach.name,
            message: StudentMessages.placementReady(levelName: level.name, coachName: coach.name),
            extra: .init(level: .init(id: level.id, name: level.name), coach: .init(id: coach.id, name: coach.name),
                         semesterId: semester.id))
        return .success(enrolment)
    }

    /// The enrolment's weekly and end-of-course recordings that stand: kinds `week` and
    /// `eoc` in any state but `failed` and `withdrawn` (those are not the student's recordings
    /// any more: their attempt was returned). A superseded or answered one counts: it was
    /// recorded, and may carry a coach's reply, against the level the enrolment has now. The
    /// placement assessment does not count. Once this is above zero the level (and, for a
    /// placement, the coach) is fixed: `place` answers `already_placed`, and a roster row
    /// that would change the level is refused.
    static func recordingCount(_ db: SQLSession, enrolmentId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM submission
            WHERE enrolmentId = ? AND kind IN (?, ?) AND state NOT IN \(SubmissionState.notCountedSQL)
            """, arguments: [enrolmentId, SubmissionKind.week.rawValue, SubmissionKind.eoc.rawValue]) ?? 0
    }

    /// The migration "enrolments: weeks owed": the first week an enrolment owes (1 for every
    /// enrolment there is: they were all owed from week 1). Never edited once landed.
    static func migrateWeeksOwed(_ db: Database) throws {
        try db.alter(table: "enrolment") { t in
            t.add(column: "owesFromWeek", .integer).notNull().defaults(to: 1)
        }
    }
}
