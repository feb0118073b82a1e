import Foundation
import GRDB
import TilawaCore

/// Everything a student's timeline shows, read in one transaction.
public struct TimelineData: Sendable {
    public var student: StudentRecord
    public var semester: SemesterRecord
    public var calendar: SemesterCalendar
    public var curriculum: [CurriculumWeekRecord]
    public var submissions: [SubmissionRecord]
    public var feedback: [FeedbackRecord]
    public var coachNames: [String: String]
    public var rules: SubmissionRules
    public var history: [AcceptedSubmission]
}
