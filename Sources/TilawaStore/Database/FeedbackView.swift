import Foundation
import GRDB
import TilawaCore

/// A reply with what its API resource shows beside it: the submission it answers and the coach's name.
public struct FeedbackView: Sendable {
    public var feedback: FeedbackRecord
    public var submission: SubmissionRecord
    public var coachName: String
}
