import Foundation
import GRDB
import TilawaCore

/// One line of a coach's queue.
public struct QueueItem: Sendable {
    public var submission: SubmissionRecord
    public var studentName: String
    /// The week's title, or the end-of-course title; nil for a placement assessment.
    public var title: String? = nil
    /// The passage recited (the week's or the end-of-course one); nil for a placement assessment.
    public var passage: String? = nil
}
