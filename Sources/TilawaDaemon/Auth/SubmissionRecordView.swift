import Foundation
import HTTPTypes
import Hummingbird

/// The one thing access checks need from a submission.
protocol SubmissionRecordView {
    var studentId: String { get }
}
