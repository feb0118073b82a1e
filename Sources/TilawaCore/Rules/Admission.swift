/// What the rules decided for an accepted recording: late or not, attempts, what it supersedes.
///
/// The store applies it in the same transaction as the insert (DESIGN §1: the check and
/// the insert are one atomic step).
public struct Admission: Sendable, Hashable, Codable {
    /// Whether the recording is past its week's deadline (always false for `eoc` and `assessment`).
    public let late: Bool
    /// The attempt status with this recording counted (unchanged for uncounted kinds).
    public let attempts: AttemptStatus
    /// Earlier submissions of the same slot still `processing` or `awaiting_feedback`, oldest
    /// first: they become `superseded`. Reviewed ones keep their feedback and are not listed.
    public let supersedes: [Identifier]
    /// The grant the recording uses, when the attempt window was full (DESIGN §11); nil otherwise.
    public let grantId: String?

    /// An admission; `SubmissionRules.admit` computes these.
    public init(late: Bool, attempts: AttemptStatus, supersedes: [Identifier], grantId: String? = nil) {
        self.late = late
        self.attempts = attempts
        self.supersedes = supersedes
        self.grantId = grantId
    }
}
