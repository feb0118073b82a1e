import Foundation
import GRDB
import TilawaCore

/// The answer to an admission: the new submission, or the rule that refused it.
public enum AdmissionOutcome: Sendable, Equatable {
    case admitted(SubmissionRecord, attempts: AttemptStatus, job: JobRecord)
    case refused(RuleRefusal, timeZone: TimeZone)
}
