import Foundation
import GRDB
import TilawaCore

/// Everything the rules need about one student, read inside the caller's transaction.
struct StudentContext {
    let student: StudentRecord
    let calendar: SemesterCalendar
    let rules: SubmissionRules
    let history: [AcceptedSubmission]
    let titles: [Int: String]

    static func load(_ db: Database, student: StudentRecord, policy: ProgramPolicy) throws -> StudentContext {
        guard let semester = try SemesterRecord.fetchOne(db, key: student.semesterId) else {
            throw StoreError.internalInconsistency("student \(student.id) belongs to unknown semester \(student.semesterId)")
        }
        let calendar = try semester.calendar()
        let rules = try SubmissionRules(
            calendar: calendar, attemptWindow: policy.attemptWindow, eocRequiredWeeks: policy.eocRequiredWeeks)
        let titles = Dictionary(
            try CurriculumWeekRecord.filter(Column("levelId") == student.levelId).fetchAll(db).map { ($0.week, $0.title) },
            uniquingKeysWith: { first, _ in first })
        return StudentContext(
            student: student, calendar: calendar, rules: rules, history: try history(db, studentId: student.id), titles: titles)
    }

    /// Accepted submissions of a student (failed ones never count).
    static func history(_ db: Database, studentId: String) throws -> [AcceptedSubmission] {
        try SubmissionRecord
            .filter(Column("studentId") == studentId && Column("state") != SubmissionState.failed.rawValue)
            .order(Column("receivedAt"))
            .fetchAll(db)
            .map { try $0.accepted() }
    }

    func slotTitle(_ slot: Slot) -> String {
        switch slot {
        case let .week(number):
            titles[number].map { "week \(number) (\($0))" } ?? "week \(number)"
        case .eoc: "the end-of-course assessment"
        case .assessment: "the placement assessment"
        }
    }

    static func weekInfo(_ db: Database, levelId: String, slot: Slot) throws -> EventPayload.WeekInfo {
        switch slot {
        case let .week(number):
            let row = try CurriculumWeekRecord.fetchOne(db, key: ["levelId": levelId, "week": number])
            return .init(number: number, kind: "week", title: row?.title ?? "Week \(number)", passage: row?.passage)
        case .eoc:
            return .init(number: nil, kind: "eoc", title: "End-of-course assessment", passage: nil)
        case .assessment:
            return .init(number: nil, kind: "assessment", title: "Placement assessment", passage: nil)
        }
    }
}
