import Foundation
import TilawaAudio
import TilawaCore
import TilawaStore

/// What happened to a coach's reply.
public enum FeedbackOutcome: Sendable {
    /// Paired and recorded; its encode job is queued.
    case accepted(FeedbackRecord, job: JobRecord)
    /// The audio cannot be used (silent, unreadable, …).
    case rejected(AudioVerdict)
    /// It cannot be paired (unknown student, not their coach, no submission).
    case refused(FeedbackRefusal)
}
