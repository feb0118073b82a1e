import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// `cover`: `coachId`'s open work goes to `coveringCoachId` until `until` (DESIGN §11) — the
    /// covering coach's queue lists the covered coach's students' recordings, may answer them
    /// (desk, HTTP and drop folder), and gets the events meant for the covered coach. The
    /// covered coach keeps read access to their students. A new cover replaces the one running;
    /// an `until` not after now ends it. With same-gender coaching on, every student of the
    /// covered coach must be one the covering coach may coach.
    static func cover(_ db: SQLSession, coachId: String, by coveringCoachId: String, until: Date, now: Date) throws -> Result<AuditDraft, BackOfficeRefusal> {
        guard let covered = try CoachRecord.fetchOne(db, key: coachId) else { return .failure(.unknownCoach(coachId)) }
        guard try CoachRecord.exists(db, key: coveringCoachId) else { return .failure(.unknownCoach(coveringCoachId)) }
        guard coachId != coveringCoachId else { return .failure(.coverSelf) }
        let running = try Row.fetchOne(db, sql: """
            SELECT coveringCoachId, until FROM coachCover WHERE coachId = ? AND startsAt <= ? AND until > ? ORDER BY id DESC LIMIT 1
            """, arguments: [coachId, now, now])
        let before: [String: MessageValue]? = running.map { ["covering_coach_id": .text($0["coveringCoachId"] as String), "until": .instant($0["until"] as Date)] }
        if until <= now {
            guard running != nil else { return .failure(.noCoverToEnd(coachId)) }
            try db.execute(sql: "UPDATE coachCover SET until = ? WHERE coachId = ? AND startsAt <= ? AND until > ?", arguments: [now, coachId, now, now])
            return .success(AuditDraft(action: "cover_ended", coachId: coachId, otherCoachId: running?["coveringCoachId"], before: before,
                                       after: ["until": .instant(now)]))
        }
        let latest = now.addingTimeInterval(BackOfficeAction.maximumHorizon)
        guard until <= latest else { return .failure(.tooFarAhead(latest: latest)) }
        let students = try String.fetchAll(db, sql: "SELECT DISTINCT studentId FROM enrolment WHERE coachId = ? ORDER BY studentId", arguments: [coachId])
        for student in students {
            if let refusal = try genderRefusal(db, studentId: student, coachId: coveringCoachId) { return .failure(.genderMismatch(refusal)) }
        }
        try db.execute(sql: "UPDATE coachCover SET until = ? WHERE coachId = ? AND startsAt <= ? AND until > ?", arguments: [now, coachId, now, now])
        try db.execute(sql: "INSERT INTO coachCover (coachId, coveringCoachId, startsAt, until) VALUES (?, ?, ?, ?)",
                       arguments: [coachId, coveringCoachId, now, until])
        let zone = try programmeZone(db)
        try recordStaffEvent(
            db, type: .coverStarted, occurredAt: now,
            message: StaffMessages.coverStarted(coveredCoachName: covered.name, until: until, zone: zone),
            link: .coachQueue, extra: nil, recipient: .coach(coveringCoachId))
        return .success(AuditDraft(action: "cover_started", coachId: coachId, otherCoachId: coveringCoachId, before: before,
                                   after: ["covering_coach_id": .text(coveringCoachId), "until": .instant(until)]))
    }

    /// The coach covering `coachId` at `now`, if any.
    static func coveringCoach(_ db: SQLSession, of coachId: String, at now: Date) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT coveringCoachId FROM coachCover WHERE coachId = ? AND startsAt <= ? AND until > ? ORDER BY id DESC LIMIT 1
            """, arguments: [coachId, now, now])
    }

    /// Whether `coveringCoachId` covers `coachId` at `now`.
    static func covers(_ db: SQLSession, _ coveringCoachId: String, _ coachId: String, at now: Date) throws -> Bool {
        try coveringCoach(db, of: coachId, at: now) == coveringCoachId
    }

    /// The zone of the newest semester (the programme's), for staff messages.
    static func programmeZone(_ db: SQLSession) throws -> TimeZone {
        let name = try String.fetchOne(db, sql: "SELECT timeZone FROM semester ORDER BY startDate DESC LIMIT 1")
        return name.flatMap(TimeZone.init(identifier:)) ?? .gmt
    }
}
