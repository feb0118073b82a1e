import Foundation
import HTTPTypes
import Hummingbird

/// What access checks need from a submission: whose it is, and its id (a coach's right to
/// read it depends on its enrolment).
protocol SubmissionRecordView {
    var id: String { get }
    var studentId: String { get }
}
