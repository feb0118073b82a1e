import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// `changeEnrolment`: the student's current enrolment gets another coach, level or standing
    /// (DESIGN §11). Recordings keep the level and title they were recited for
    /// (`submission.levelId`, `.title`) and the weeks done still count; the old coach keeps
    /// read access to what they wrote (`coachMaySee`). Pausing or leaving opens a pause (the
    /// weeks whose deadline falls in it are not owed, no reminders, uploads 409); resuming
    /// closes it. Each change is an `enrolmentChange` row and a sentence to the student.
    static func changeEnrolment(
        _ db: SQLSession, studentId: String, coachId: String?, levelId: String?, state: RuleOverrides.Standing?, by actor: String,
        policy: ProgramPolicy, now: Date
    ) throws -> Result<AuditDraft, BackOfficeRefusal> {
        let context: StudentContext
        switch try actionContext(db, studentId: studentId, policy: policy, now: now) {
        case let .failure(refusal): return .failure(refusal)
        case let .success(found): context = found
        }
        var enrolment = context.enrolment
        if try context.semester.calendar().isClosed(at: now) { return .failure(.semesterClosed(context.semester.id)) }
        let coach = try coachId.flatMap { try CoachRecord.fetchOne(db, key: $0) }
        if let coachId, coach == nil { return .failure(.unknownCoach(coachId)) }
        let level = try levelId.flatMap { try LevelRecord.fetchOne(db, key: $0) }
        if let levelId, level == nil { return .failure(.unknownLevel(levelId)) }
        if coachId != nil || levelId != nil, !enrolment.isPlaced { return .failure(.notPlaced(studentId)) }
        let newCoach = coachId.flatMap { $0 == enrolment.coachId ? nil : $0 }
        let newLevel = levelId.flatMap { $0 == enrolment.levelId ? nil : $0 }
        let newState = state.flatMap { $0 == enrolment.state ? nil : $0 }
        guard newCoach != nil || newLevel != nil || newState != nil else { return .failure(.noChange) }
        if let newCoach, let refusal = try genderRefusal(db, studentId: studentId, coachId: newCoach) {
            return .failure(.genderMismatch(refusal))
        }
        let before: [String: MessageValue] = [
            "semester_id": .text(enrolment.semesterId), "coach_id": .text(enrolment.coachId), "level_id": .text(enrolment.levelId),
            "state": .text(enrolment.state.rawValue),
        ].compactMapValues { $0 }
        let formerCoach = enrolment.coachId
        var changes: [EnrolmentChangeRecord.Change] = []
        var messages: [EventMessage] = []
        if let newCoach, let coach {
            enrolment.coachId = newCoach
            changes.append(.coachChanged)
            messages.append(StudentMessages.enrolmentChanged("coach", coachName: coach.name))
        }
        if let newLevel, let level {
            enrolment.levelId = newLevel
            changes.append(.levelChanged)
            messages.append(StudentMessages.enrolmentChanged("level", levelName: level.name))
        }
        if let newState {
            let wasActive = enrolment.state == .active
            enrolment.state = newState
            if wasActive {
                try db.execute(sql: "INSERT INTO enrolmentPause (enrolmentId, startedAt) VALUES (?, ?)", arguments: [context.enrolmentId, now])
            } else if newState == .active {
                try db.execute(sql: "UPDATE enrolmentPause SET endedAt = ? WHERE enrolmentId = ? AND endedAt IS NULL",
                               arguments: [now, context.enrolmentId])
            }
            // The back office took the pause or resume over: provisioning again no longer
            // resumes what the identity provider paused (an operator's own pause stays).
            if actor != scimActor {
                try db.execute(sql: "UPDATE scimUser SET pausedEnrolmentId = NULL WHERE pausedEnrolmentId = ?", arguments: [context.enrolmentId])
            }
            let change: EnrolmentChangeRecord.Change = switch newState {
            case .active: .resumed
            case .paused: .paused
            case .left: .left
            }
            changes.append(change)
            messages.append(StudentMessages.enrolmentChanged(newState == .active ? "resumed" : newState.rawValue))
        }
        try enrolment.update(db)
        var changeIds: [Int64] = []
        for change in changes {
            var record = EnrolmentChangeRecord(enrolmentId: context.enrolmentId, change: change, levelId: enrolment.levelId,
                                               coachId: enrolment.coachId, changedAt: now, changedBy: actor)
            try record.insert(db)
            if let id = record.id { changeIds.append(id) }
        }
        let coachName = try enrolment.coachId.flatMap { try CoachRecord.fetchOne(db, key: $0) }?.name
        for message in messages {
            try recordEvent(db, type: .enrolmentChanged, studentId: studentId, levelId: enrolment.levelId, slot: .assessment,
                            occurredAt: now, submissionId: nil, feedbackId: nil, coachName: coachName, message: message)
        }
        let after: [String: MessageValue] = [
            "semester_id": .text(enrolment.semesterId), "coach_id": .text(enrolment.coachId), "level_id": .text(enrolment.levelId),
            "state": .text(enrolment.state.rawValue),
        ].compactMapValues { $0 }
        return .success(AuditDraft(
            action: "enrolment_changed", studentId: studentId, coachId: enrolment.coachId,
            otherCoachId: formerCoach == enrolment.coachId ? nil : formerCoach, before: before, after: after,
            enrolmentChanges: changeIds))
    }
}
