import Foundation
import GRDB
import TilawaCore

/// One line of a coach's queue.
public struct QueueItem: Sendable {
    public var submission: SubmissionRecord
    public var studentName: String
}
