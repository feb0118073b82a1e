import Foundation
import GRDB
import TilawaCore

/// Everything a student's timeline shows for one enrolment, read in one transaction.
public struct TimelineData: Sendable {
    /// One of the student's semesters, for the learning history.
    public struct EnrolmentSummary: Sendable {
        public var enrolment: EnrolmentRecord
        public var semester: SemesterRecord
        public var level: LevelRecord?
        public var coach: CoachRecord?
    }

    public var student: StudentRecord
    public var enrolment: EnrolmentRecord
    public var semester: SemesterRecord
    public var level: LevelRecord?
    public var coach: CoachRecord?
    public var calendar: SemesterCalendar
    public var curriculum: [CurriculumWeekRecord]
    /// This enrolment's submissions, oldest first.
    public var submissions: [SubmissionRecord]
    public var feedback: [FeedbackRecord]
    public var coachNames: [String: String]
    public var rules: SubmissionRules
    /// This enrolment's accepted submissions (the rules' view).
    public var history: [AcceptedSubmission]
    /// The student's other semesters' accepted submissions (attempts only).
    public var elsewhere: [AcceptedSubmission]
    /// Every enrolment of the student, oldest semester first.
    public var enrolments: [EnrolmentSummary]
    /// The placement assessment awaiting a level, if the student is unplaced and has sent one.
    public var pendingAssessment: SubmissionRecord?
    /// The programme's turnaround settings, for sentences.
    public var policy: ProgramPolicy
    /// The threads under the replies, by reply id, oldest first.
    public var comments: [String: [CommentRecord]] = [:]
    /// The coach's marks on the enrolment's recordings, by submission id, in recording order.
    public var annotations: [String: [AnnotationRecord]] = [:]
}
