import Foundation
import TilawaCore
import TilawaStore

/// What happened to one recording handed to `SubmissionIntake`.
public enum IntakeOutcome: Sendable {
    /// Accepted: a submission in `processing` with its encode job queued.
    case accepted(SubmissionRecord, attempts: AttemptStatus, job: JobRecord)
    /// Refused for its audio (`too_quiet`, `unreadable`, …); no attempt used.
    case rejected(AudioVerdict, analysis: AudioAnalysis?)
    /// Refused by a programme rule (`attempt_limit`, `week_locked`, …); no attempt used.
    case refused(RuleRefusal, timeZone: TimeZone)
}
